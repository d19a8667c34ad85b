import type { Project, ShopOperations } from '@shop/core';
import { resumeDetached } from './background-resume.js';

/**
 * How `shop serve` gets a run going again after an answer when no live driver holds it: a
 * detached `shop resume <id>` (output in .shop/runs/<id>/serve-resume.log). The server never
 * drives runs itself (a run's agents and Lua would share the server's process and die with it).
 */
export function backgroundResumer(project: Project, env: NodeJS.ProcessEnv, log: (line: string) => void) {
  const failed = (runId: number, e: Error) =>
    log(`shop serve: could not resume run ${runId}: ${e.message}; resume it with: shop resume ${runId}`);
  return (runId: number) => {
    try {
      resumeDetached(project, env, runId, 'serve-resume.log', (e) => failed(runId, e));
    } catch (e) {
      failed(runId, e as Error);
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
export async function resumeAnswered(
  ops: Pick<ShopOperations, 'strandedRuns'>,
  resume: (runId: number) => void,
  log: (line: string) => void,
) {
  const stranded = await ops.strandedRuns();
  for (const id of stranded.slice(0, START_RESUMES)) resume(id);
  if (stranded.length > START_RESUMES) {
    log(
      `shop serve: ${stranded.length - START_RESUMES} more answered runs wait for a driver (run ${stranded.slice(START_RESUMES, START_RESUMES + 5).join(', ')}…); shop watch takes them all`,
    );
  }
}
