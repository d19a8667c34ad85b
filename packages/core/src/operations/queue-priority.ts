import { ConflictError, RunNotFoundError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { Channel, Run } from '../types.js';
import { checkPriority } from './queue-checks.js';

/** A queued run re-prioritised; refused once a worker has taken it (or it ended). */
export async function setQueuedPriority(
  store: Store,
  runId: number,
  priority: number,
  by: string,
  channel: Channel,
): Promise<Run> {
  checkPriority(priority);
  if (await store.setPriority(runId, priority, by, channel)) return (await store.getRun(runId))!;
  const run = await store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  throw new ConflictError(`run ${runId} is ${run.status}, not queued: only a queued run's priority changes`);
}
