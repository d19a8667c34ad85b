import { ConflictError } from '../errors.js';
import { hasEnded } from '../types.js';
import { driveRun, type DriveOptions } from './drive-run.js';
import type { DriveOutcome } from './outcome.js';
import { liveOwner, storeLiveness } from './ownership.js';
import type { EnginePorts } from './ports.js';

/** How far up a chain of parents one end is carried (the depth bound of call_workflow, and one). */
const MAX_UP = 9;

/**
 * A child run driven here to its end wakes its parent: the parent is driven here too when no
 * live driver holds it (one holding it hears of the end itself), and so on up. The last run
 * driven and where it stopped: a person answering a child's ask gets the parent's state.
 */
export async function driveParents(
  ports: EnginePorts,
  runId: number,
  outcome: DriveOutcome,
  opts: DriveOptions,
): Promise<{ runId: number; outcome: DriveOutcome }> {
  let at = { runId, outcome };
  for (let n = 0; n < MAX_UP; n++) {
    const { outcome } = at;
    if (outcome.status !== 'completed' && outcome.status !== 'stuck' && outcome.status !== 'failed') break;
    // A run with no parent ends here without a read more (an answer's path reads the run once).
    const parent = outcome.parentId !== undefined ? await ports.store.getRun(outcome.parentId) : null;
    if (!parent || hasEnded(parent) || liveOwner(storeLiveness(ports), parent)) break;
    try {
      at = { runId: parent.id, outcome: await driveRun(ports, parent.id, opts) };
    } catch (e) {
      // Another driver took the parent just now: it takes the child's end in itself.
      if (e instanceof ConflictError) break;
      throw e;
    }
  }
  return at;
}
