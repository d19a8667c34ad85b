import type { Run } from './types.js';

/** Whether a live process other than `pid` holds the run's lease. */
export function ownedByOther(run: Run, pid: number, now: number, isAlive: (pid: number) => boolean): boolean {
  return run.ownerPid != null && run.ownerPid !== pid && (run.leaseUntil ?? 0) > now && isAlive(run.ownerPid);
}

/** A running run whose driver is gone (lease expired or process dead) is shown as "interrupted". */
export function displayStatus(run: Run, now: number, isAlive: (pid: number) => boolean): string {
  if (run.status !== 'running') return run.status;
  return ownedByOther(run, -1, now, isAlive) ? 'running' : 'interrupted';
}
