import { liveOwner } from './engine/ownership.js';
import type { EnginePorts } from './engine/ports.js';
import type { Run } from './types.js';

/** What telling a live owner from a gone one needs: this host, process checks, the time. */
export type Liveness = Pick<EnginePorts, 'self' | 'processAlive' | 'clock'>;

/** Every status a run is shown with: the stored ones, and "interrupted" for a running run whose driver is gone. */
export const displayStatuses = [
  'queued',
  'running',
  'interrupted',
  'waiting',
  'waiting_human',
  'completed',
  'stuck',
  'failed',
] as const;
export type DisplayStatus = (typeof displayStatuses)[number];

/** A running run whose driver is gone (lease expired or process dead) is shown as "interrupted". */
export function displayStatus(run: Run, liveness: Liveness): DisplayStatus {
  if (run.status !== 'running') return run.status;
  return liveOwner(liveness, run) ? 'running' : 'interrupted';
}

/** How a run is shown, judged once by one liveness: its display status and, when interrupted, since when its driver is gone. */
export interface RunLook {
  status: DisplayStatus;
  goneSince: number | null;
}

export function runLook(run: Run, liveness: Liveness): RunLook {
  return { status: displayStatus(run, liveness), goneSince: driverGoneSince(run, liveness) };
}

/**
 * Since when a run shown as interrupted has had no driver: the last write any driver made to
 * it (a driver letting go on Ctrl-C touches it too). Null for a run that is not interrupted.
 */
export function driverGoneSince(run: Run, liveness: Liveness): number | null {
  return displayStatus(run, liveness) === 'interrupted' ? run.updatedAt : null;
}
