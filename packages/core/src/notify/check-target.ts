import { parseTarget } from './parse-target.js';

/** config{}'s check of a notify entry: null when it names a notifier, else the one-line problem. */
export function checkTarget(entry: string): string | null {
  const target = parseTarget(entry);
  return typeof target === 'string' ? target : null;
}
