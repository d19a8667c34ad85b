import { ConflictError } from '../errors.js';
import { driveRun } from '../engine/drive-run.js';
import { driveParents } from '../engine/drive-parents.js';
import { ended, type DriveOutcome } from '../engine/outcome.js';
import { liveOwner, storeLiveness } from '../engine/ownership.js';
import type { EnginePorts } from '../engine/ports.js';
import { hasEnded, type Run, type RunOwner } from '../types.js';

export interface StopResult {
  run: Run;
  /** The live driver that carried the stop out, or null when it was done here. */
  by: RunOwner | null;
  /** Its children (and theirs) stopped with it, as they ended. */
  children: Run[];
  /** Its parent, woken by the stop and driven on here when nobody drove it (its call_workflow raises), as it then stood. */
  parent: Run | null;
}

/**
 * `shop stop`: records the stop in the store. A live owner carries it out (it looks within
 * a second, kills its agents and starts nothing more); this waits for that. Without one,
 * the run is taken and ended here. An owner that stops answering (a SIGSTOP) loses its
 * lease, and then the stop is carried out here too.
 */
export async function stopRun(
  ports: EnginePorts,
  runId: number,
  reason: string,
  by: string,
  onWaiting?: (owner: RunOwner) => void,
): Promise<StopResult> {
  // A queued run no worker took ends here and now: nothing runs it, nobody carries a stop out.
  if (await ports.store.dequeue(runId, reason, by))
    return { run: (await ports.store.getRun(runId))!, by: null, children: [], parent: null };
  // Its children (and theirs) are stopped with it, in the same transaction; each is carried out as the run is.
  await ports.store.requestStop(runId, reason, by);
  const result = await carryOut(ports, runId, onWaiting);
  const children: Run[] = [];
  for (const child of await openDescendants(ports, runId)) children.push((await carryOut(ports, child)).run);
  // A child stopped wakes its parent: its call_workflow raises "run … was stopped" (a pcall may handle it).
  let parent: Run | null = null;
  if (result.run.parentId !== null && hasEnded(result.run)) {
    const woke = await driveParents(
      ports,
      runId,
      { ...ended(result.run), parentId: result.run.parentId } as DriveOutcome,
      { wait: false },
    );
    parent = woke.runId === runId ? null : await ports.store.getRun(woke.runId);
  }
  return { ...result, children, parent };
}

/** The run's children not ended yet, and theirs (bounded: a chain is never deeper than call_workflow allows). */
async function openDescendants(ports: EnginePorts, runId: number): Promise<number[]> {
  const found: number[] = [];
  for (let parents = [runId], depth = 0; parents.length && depth < 9; depth++) {
    const next: number[] = [];
    for (const id of parents)
      for (const child of await ports.store.listChildren(id)) if (!hasEnded(child)) next.push(child.id);
    found.push(...next);
    parents = next;
  }
  return found;
}

/** Waits for a live owner to carry the recorded stop out; without one, takes the run and ends it here. */
async function carryOut(
  ports: EnginePorts,
  runId: number,
  onWaiting?: (owner: RunOwner) => void,
): Promise<Pick<StopResult, 'run' | 'by'>> {
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
