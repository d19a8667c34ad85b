import { readFileSync } from 'node:fs';
import type { Clock } from './ports.js';

/**
 * The system clock — or, with SHOP_CLOCK_FILE (a file holding a number of seconds), that far
 * ahead: every process of a project reads the same file, so a test fast-forwards timers and
 * leases alike instead of sleeping. Read at most every 100 ms.
 */
export function nodeClock(env: NodeJS.ProcessEnv = process.env): Clock {
  const file = env.SHOP_CLOCK_FILE;
  if (!file) return { now: () => Date.now() };
  let offset = 0;
  let readAt = -Infinity;
  return {
    now() {
      const t = Date.now();
      if (t - readAt > 100) {
        readAt = t;
        try {
          offset = Number(readFileSync(file, 'utf8').trim()) * 1000 || 0;
        } catch {
          offset = 0;
        }
      }
      return t + offset;
    },
  };
}
