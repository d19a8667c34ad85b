import { writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/** How a wake file's name ends: the watcher that sees one removes it a little later. */
export const WAKE_SUFFIX = '.answered';

/**
 * Tells the live owners watching this folder that an answer was recorded for them, so they
 * look at the store now instead of at their next rescan. One file per ask: chokidar drops a
 * second change to the same file within ~50 ms, and an answer must not wait for a rescan
 * because another came just before it. It carries nothing: the owner reads the answer from
 * the store, and no signal is ever taken from it. Best effort — the rescan is the safety net.
 */
export function wakeOwners(signalsDir: string, ask: { runId: number; key: string; ask: number }): void {
  try {
    writeFileSync(join(signalsDir, `${ask.runId}.${ask.key.replaceAll('/', '-')}.${ask.ask}${WAKE_SUFFIX}`), '', {
      mode: 0o600,
    });
  } catch {
    /* the rescan picks the answer up */
  }
}

/**
 * The same for an event sent to a run waiting on it (`<run>.event-<id>.answered`): its live
 * owner on this machine takes the event now, not at its next look.
 */
export function wakeForEvent(signalsDir: string, runId: number, eventId: number): void {
  try {
    writeFileSync(join(signalsDir, `${runId}.event-${eventId}${WAKE_SUFFIX}`), '', { mode: 0o600 });
  } catch {
    /* the worker's pass picks the event up */
  }
}

/** Whether a wake-up file is an event's (wakeForEvent), not an answer's. */
export const isEventWake = (path: string) => /^\d{1,15}\.event-\d+\./.test(basename(path));

/** Whether a wake-up file is a queued run's (wakeForQueued). */
export const isQueuedWake = (path: string) => /^\d{1,15}\.queued\./.test(basename(path));

/** The run an answer's wake-up file names (its name begins "<runId>."), or null. */
export function answeredRun(path: string): number | null {
  const m = /^(\d{1,15})\./.exec(basename(path));
  return m ? Number(m[1]) : null;
}

/** The same for a run queued (`<run>.queued.answered`): this machine's idle workers take it now, not at their next sweep. */
export function wakeForQueued(signalsDir: string, runId: number): void {
  try {
    writeFileSync(join(signalsDir, `${runId}.queued${WAKE_SUFFIX}`), '', { mode: 0o600 });
  } catch {
    /* the worker's sweep picks the run up */
  }
}
