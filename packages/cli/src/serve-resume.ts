import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import type { ShopOperations } from '@shop/core/operations/shop-operations';
import type { Project } from '@shop/core/project/project';

/**
 * How `shop serve` gets a run going again after an answer when no live driver holds it: a
 * detached `shop resume <id>` of this same binary, in the project's root, its output appended
 * to .shop/runs/<id>/serve-resume.log. The server never drives runs itself (a run's agents
 * and Lua would share the server's process and die with it).
 */
export function backgroundResumer(project: Project, shopBin: string, env: NodeJS.ProcessEnv, log: (line: string) => void) {
  // An agent's variables must not leak into the run's driver: it would refuse to act as a person.
  const childEnv = { ...env };
  delete childEnv.SHOP_AGENT;
  return (runId: number) => {
    let fd: number | null = null;
    try {
      const dir = join(project.runsDir, String(runId));
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      fd = openSync(join(dir, 'serve-resume.log'), 'a', 0o600);
      const child = spawn(process.execPath, [shopBin, 'resume', String(runId)], { cwd: project.root, env: childEnv, detached: true, stdio: ['ignore', fd, fd] });
      child.on('error', (e) => log(`shop serve: could not resume run ${runId}: ${e.message}; resume it with: shop resume ${runId}`));
      child.unref();
    } catch (e) {
      log(`shop serve: could not resume run ${runId}: ${(e as Error).message}; resume it with: shop resume ${runId}`);
    } finally {
      if (fd !== null) closeSync(fd);
    }
  };
}

/** At most this many `shop resume` children at start: a store of many stranded runs is shop watch's work. */
const START_RESUMES = 20;

/**
 * At start: runs answered but never taken on — the server (or the live driver it handed the
 * answer to) died between the answer and the resume — are resumed now, unless a live driver
 * holds them. Without this they would wait for a person with nothing left to answer.
 */
export async function resumeAnswered(ops: Pick<ShopOperations, 'strandedRuns'>, resume: (runId: number) => void, log: (line: string) => void) {
  const stranded = await ops.strandedRuns();
  for (const id of stranded.slice(0, START_RESUMES)) resume(id);
  if (stranded.length > START_RESUMES) {
    log(`shop serve: ${stranded.length - START_RESUMES} more answered runs wait for a driver (run ${stranded.slice(START_RESUMES, START_RESUMES + 5).join(', ')}…); shop watch takes them all`);
  }
}
