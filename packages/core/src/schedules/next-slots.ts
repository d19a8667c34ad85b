import { checkCount, checkInstant } from './schedule.js';
import type { Schedule } from './schedule.js';

/** The most slots one call lists: a bound on the work a caller's `n` can ask for. */
export const MAX_NEXT_SLOTS = 1000;

/**
 * The next `n` slots strictly after `afterMs`, oldest first, as epoch ms (UTC instants);
 * fewer only past the year 3000, where croner stops looking. Each instant appears once, in
 * order, across DST changes too (see parseSchedule for which instants those are).
 */
export function nextSlots(schedule: Schedule, afterMs: number, n: number): number[] {
  checkInstant('afterMs', afterMs);
  checkCount('n', n, 0, MAX_NEXT_SLOTS);
  const slots: number[] = [];
  let t = afterMs;
  while (slots.length < n) {
    const next = schedule.slotAfter(t);
    if (next === null) break;
    slots.push(next);
    t = next;
  }
  return slots;
}
