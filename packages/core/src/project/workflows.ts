import { existsSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { NotFoundError } from '../errors.js';
import { capText, quoted } from '../text.js';
import type { Project } from './project.js';

/**
 * Resolves a workflow name (or a path to a .lua file) to its file: the project's
 * `workflows/<name>.lua`, else the person's own `~/.shop/workflows/<name>.lua` (the project's
 * wins a name both have).
 */
export function resolveWorkflow(project: Project, name: string): { spec: string; path: string } {
  const direct = name.endsWith('.lua') ? join(project.root, name) : join(project.workflowsDir, `${name}.lua`);
  const own = name.endsWith('.lua') ? null : join(project.userWorkflowsDir, `${name}.lua`);
  const path =
    name.endsWith('.lua') && existsSync(name) ? name : !existsSync(direct) && own && existsSync(own) ? own : direct;
  if (!existsSync(path)) {
    const found = listWorkflows(project);
    const mine = listUserWorkflows(project).filter((w) => !found.includes(w));
    const what = `unknown workflow ${quoted(name)}: no ${capText(path, 120)}`;
    const lists = [
      found.length ? `found: ${found.join(', ')}` : '',
      mine.length ? `in ${capText(project.userWorkflowsDir, 120)}: ${mine.join(', ')}` : '',
    ].filter(Boolean);
    throw lists.length
      ? new NotFoundError(`${what} (${lists.join('; ')})`)
      : new NotFoundError(what, [{ verb: 'init' }]);
  }
  return { spec: basename(path, '.lua'), path };
}

/** The project's workflows by name (workflows/*.lua), sorted. */
export function listWorkflows(project: Project): string[] {
  return luaFiles(project.workflowsDir);
}

/** The person's own workflows (~/.shop/workflows/*.lua), sorted. */
export function listUserWorkflows(project: Project): string[] {
  return luaFiles(project.userWorkflowsDir);
}

/** Every workflow a run may name: the project's, then the person's own that the project does not have. */
export function allWorkflows(project: Project): string[] {
  const found = listWorkflows(project);
  return [...found, ...listUserWorkflows(project).filter((w) => !found.includes(w))];
}

function luaFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.lua'))
    .map((f) => basename(f, '.lua'))
    .sort();
}
