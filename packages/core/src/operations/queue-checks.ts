import { UsageError } from '../errors.js';

export const PRIORITY_LIMIT = 1_000_000;
const KEY = /^[A-Za-z0-9][A-Za-z0-9._:/@-]{0,99}$/;

export function checkPriority(p: number): number {
  if (!Number.isInteger(p) || Math.abs(p) > PRIORITY_LIMIT)
    throw new UsageError(
      `a priority is a whole number from -${PRIORITY_LIMIT} to ${PRIORITY_LIMIT} (higher first), not ${p}`,
    );
  return p;
}

export function checkQueueKey(key: string | null): string | null {
  if (key !== null && !KEY.test(key))
    throw new UsageError(
      `a key is 1 to 100 letters, digits and . _ : / @ - (starting with a letter or digit), not ${JSON.stringify(key.slice(0, 120))}`,
    );
  return key;
}
