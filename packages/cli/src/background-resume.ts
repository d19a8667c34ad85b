import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { Project } from '@shop/core';
import { binDir } from './context.js';

/**
 * Gets a run going again without driving it here: a detached `shop resume <id>` of this same
 * binary, in the project's root, in its own session (it outlives this process: quitting the TUI
 * or stopping the server leaves the run going), its output appended to
 * .shop/runs/<id>/<logName>. Returns that log's path; `onError` hears of a child that could
 * not start (the run then waits for an owner: shop resume or shop watch picks it up).
 */
export function resumeDetached(
  project: Project,
  env: NodeJS.ProcessEnv,
  runId: number,
  logName: string,
  onError: (e: Error) => void,
): string {
  const dir = join(project.runsDir, String(runId));
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const log = join(dir, logName);
  // An agent's variables must not leak into the run's driver: it would refuse to act as a person.
  const childEnv = { ...env };
  delete childEnv.SHOP_AGENT;
  const fd = openSync(log, 'a', 0o600);
  try {
    const child = spawn(process.execPath, [join(binDir, 'shop'), 'resume', String(runId)], {
      cwd: project.root,
      env: childEnv,
      detached: true,
      stdio: ['ignore', fd, fd],
    });
    child.on('error', onError);
    child.unref();
  } finally {
    closeSync(fd);
  }
  return log;
}
