import { chmodSync, mkdirSync } from 'node:fs';

/** The signals folder, private to its owner (0700): other users' processes can't list or write it. */
export function makeSignalsDir(signalsDir: string): void {
  mkdirSync(signalsDir, { recursive: true, mode: 0o700 });
  chmodSync(signalsDir, 0o700);
}
