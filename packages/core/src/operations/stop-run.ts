import { ConflictError } from '../errors.js';
import { driveRun } from '../engine/drive-run.js';
import { liveOwner, storeLiveness } from '../engine/ownership.js';
import type { EnginePorts } from '../engine/ports.js';
import { hasEnded, type Run, type RunOwner } from '../types.js';

export interface StopResult {
  run: Run;
  /** The live driver that carried the stop out, or null when it was done here. */
  by: RunOwner | null;
}

/**
 * `shop stop`: records the stop in the store. A live owner carries it out (it looks within
 * a second, kills its agents and starts nothing more); this waits for that. Without one,
 * the run is taken and ended here. An owner that stops answering (a SIGSTOP) loses its
 * lease, and then the stop is carried out here too.
 */
export async function stopRun(ports: EnginePorts, runId: number, reason: string, by: string, onWaiting?: (owner: RunOwner) => void): Promise<StopResult> {
  await ports.store.requestStop(runId, reason, by);
  let handledBy: RunOwner | null = null;
  for (;;) {
    const run = (await ports.store.getRun(runId))!;
    if (hasEnded(run)) return { run, by: handledBy };
    const owner = liveOwner(storeLiveness(ports), run);
    if (owner) {
      if (!handledBy) onWaiting?.(owner);
      handledBy = owner;
      await new Promise((r) => setTimeout(r, 100));
      continue;
    }
    try {
      // Taking the run carries the recorded stop out (drive-run looks for one first).
      await driveRun(ports, runId, { wait: false });
      handledBy = null;
    } catch (e) {
      // Another driver took it just now: it carries the stop out itself.
      if (!(e instanceof ConflictError)) throw e;
    }
  }
}
