import { driveRun } from '../drive-run.js';
import type { DriveOutcome } from '../outcome.js';
import type { ScriptedWorld } from './scripted-ports.js';

/**
 * Drives a run to its end here, answering every open ask with CONTINUE the way `shop approve`
 * would — its children's too, when it waits on one that asks.
 */
export async function finishRun(world: ScriptedWorld, id: number): Promise<DriveOutcome> {
  for (let i = 0; i < 10; i++) {
    const outcome = await driveRun(world.ports, id, { wait: false });
    if (outcome.status !== 'waiting_human' && outcome.status !== 'waiting') return outcome;
    const asks = outcome.status === 'waiting' ? (outcome.asks ?? []) : outcome.waiting;
    for (const exec of asks) {
      await world.store.recordAnswer({
        runId: exec.runId,
        key: exec.key,
        ask: exec.ask,
        verdict: null,
        status: 'CONTINUE',
        message: null,
        decisions: null,
        responder: 'ann',
        channel: 'cli',
      });
    }
  }
  throw new Error('the run did not finish');
}
