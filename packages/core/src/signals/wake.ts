import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Tells the live owners watching this folder that an answer was recorded for them, so they
 * look at the store now instead of at their next rescan. It carries nothing: the owner reads
 * the answer from the store, and no signal is ever taken from this file. Best effort — the
 * rescan is the safety net.
 */
export function wakeOwners(signalsDir: string): void {
  try {
    writeFileSync(join(signalsDir, '.answered'), `${Date.now()}\n`, { mode: 0o600 });
  } catch {
    /* the rescan picks the answer up */
  }
}
