import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { NotFoundError } from '../errors.js';
import { capText, quoted } from '../text.js';
import type { Project } from './project.js';

/** Resolves a workflow name (or a path to a .lua file) to its file. */
export function resolveWorkflow(project: Project, name: string): { spec: string; path: string } {
  const direct = name.endsWith('.lua') ? join(project.root, name) : join(project.workflowsDir, `${name}.lua`);
  const path = name.endsWith('.lua') && existsSync(name) ? name : direct;
  if (!existsSync(path)) {
    const found = listWorkflows(project);
    const what = `unknown workflow ${quoted(name)}: no ${capText(path, 120)}`;
    throw found.length
      ? new NotFoundError(`${what} (found: ${found.join(', ')})`)
      : new NotFoundError(what, [{ verb: 'init' }]);
  }
  return { spec: basename(path, '.lua'), path };
}

/** The project's workflows by name (workflows/*.lua), sorted. */
export function listWorkflows(project: Project): string[] {
  if (!existsSync(project.workflowsDir)) return [];
  return readdirSync(project.workflowsDir)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => basename(f, '.lua'))
    .sort();
}
