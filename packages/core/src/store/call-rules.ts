import { ConflictError, NotFoundError } from '../errors.js';
import { hasEnded, type ExecutionStatus, type RunStatus } from '../types.js';

/**
 * The refusals every adapter makes before a driver's call write, from what it read in the same
 * transaction (the run row, the call row). One place, so SQLite and PostgreSQL refuse alike,
 * in the same words; each returns the error to throw, or null when the write may go on.
 */

/** A call starts once, and only in a run that goes on (a failed run is set running again first). */
export function startRefusal(run: { id: number; status: RunStatus }, key: string, existing: boolean): Error | null {
  if (hasEnded(run)) return new ConflictError(`run ${run.id} has ended (${run.status}); it starts no new call`);
  if (existing) return new ConflictError(`run ${run.id} already has a call ${key}; a call starts once`);
  return null;
}

/**
 * A call completes while it is open (running, or waiting for a person whose answer it takes
 * in) — or, once, when a store written by an old version completed it without handing it over.
 */
export function completeRefusal(
  runId: number,
  key: string,
  call: { status: ExecutionStatus; delivered: number | null } | null,
): Error | null {
  if (!call) return new ConflictError(`run ${runId} has no call ${key} to complete`);
  if (call.status === 'failed' || (call.status === 'completed' && call.delivered !== null)) {
    return new ConflictError(`run ${runId} call ${key} has already ${call.status}; it completes once`);
  }
  return null;
}

/** A call waits for a person unless it has completed (a failed one asks again when its run is retried). */
export function waitRefusal(runId: number, key: string, call: { status: ExecutionStatus } | null): Error | null {
  if (!call) return new NotFoundError(`run ${runId} has no call ${key}`);
  if (call.status === 'completed')
    return new ConflictError(`run ${runId} call ${key} has completed; it waits for no one`);
  return null;
}
