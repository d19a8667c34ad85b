import { mustGetRun } from '../engine/drive-run.js';
import type { NonDeterminism } from '../engine/outcome.js';
import type { EnginePorts } from '../engine/ports.js';
import { ReplayLog } from '../engine/replay-log.js';
import { Scheduler } from '../engine/scheduler.js';
import type { Run } from '../types.js';
import { heldReason } from '../rules/hold-lines.js';

export interface ReplayCheck {
  run: Run;
  compatible: boolean;
  /** Why not: the non-determinism, or the error the replay met. */
  problem: string | null;
  /** The call where the log and the workflow part ways, when that is why. */
  nonDeterminism: NonDeterminism | null;
  /** Why it is held (a rule file changed during one of its steps), when it is: shop resume refuses it until then. */
  held: string | null;
}

/**
 * `shop replay`: replays a run's log against a workflow file (its own, or `source`) without
 * touching the world or the store — no agent, no command, no write — and says whether the
 * workflow still fits the run, before anyone resumes it under a changed workflow.
 */
export async function dryReplay(ports: EnginePorts, runId: number, source?: string): Promise<ReplayCheck> {
  const run = await mustGetRun(ports, runId);
  const scheduler = new Scheduler({
    ports: source === undefined ? ports : { ...ports, readWorkflow: () => source },
    run,
    token: '',
    wait: false,
    dry: true,
    log: new ReplayLog(await ports.store.loadReplayLog(runId)),
    logCounts: () => ports.store.countLogs(runId),
    checkIn: async () => ({ kind: 'ok' }),
  });
  try {
    const outcome = await scheduler.drive();
    const held = run.held ? heldReason(run.id, run.held) : null;
    if (outcome.status !== 'failed') return { run, compatible: true, problem: null, nonDeterminism: null, held };
    return { run, compatible: false, problem: outcome.reason, nonDeterminism: outcome.nonDeterminism ?? null, held };
  } finally {
    await scheduler.close();
  }
}
