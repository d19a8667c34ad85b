import { checkCount, checkInstant } from './schedule.js';
import type { Schedule } from './schedule.js';
import type { CatchUp } from './schedule-options.js';

/** How late a slot may be and still fire under catch-up `none`: a worker's wake-up and a busy tick, not downtime. */
export const ON_TIME_MS = 60_000;
/** How many slots fire at most under catch-up `all`, and how many skipped ones are listed, unless `max` says. */
export const DEFAULT_MAX_DUE = 100;
export const MAX_DUE = 1000;
/** Skipped slots beyond those listed are counted up to this many, then reported as "at least" (1,000+). */
export const SKIP_COUNT_CAP = 1000;

export interface DueQuery {
  /** The latest slot already decided, fired or skipped (the last answer's `through`); null before the first. */
  readonly lastSlotMs: number | null;
  /** When the schedule began (was added; a caller may give when it was resumed): no slot before it is due. */
  readonly createdAtMs: number;
  readonly nowMs: number;
  readonly catchUp: CatchUp;
  /** At most this many slots fire (catch-up `all`) and this many skipped ones are listed: 1 to 1000, 100 if not given. */
  readonly max?: number;
}

export interface DueSlots {
  /** The slots to fire now, oldest first. */
  readonly fire: readonly number[];
  /** Missed slots that do not fire, oldest first: the latest `max` of them when there are more. */
  readonly skipped: readonly number[];
  /** How many missed slots do not fire, listed or not; a lower bound when `skippedAtLeast` ("1000+"). */
  readonly skippedCount: number;
  readonly skippedAtLeast: boolean;
  /** The earliest slot that does not fire (listed or not); null when none is skipped. */
  readonly firstSkipped: number | null;
  /** The latest slot this answer decides: the caller's next `lastSlotMs`; null when nothing was due. */
  readonly through: number | null;
  /** The first slot after now: when to look again; null when there is none. */
  readonly next: number | null;
}

/**
 * Which slots fire now. A schedule's slots are the instants its cron expression matches on its
 * zone's clock (see parseSchedule). The slots after `lastSlotMs`, at or after `createdAtMs`,
 * and at or before `nowMs` are missed or due; which of them fire is the catch-up policy's:
 * - `none`: the latest, if it is at most ON_TIME_MS old (a tick that came a little late);
 *   after downtime, none;
 * - `latest` (the default): the latest, however old: one run stands for them all;
 * - `all`: each, oldest first — but at most `max`: the latest `max` of them.
 * Every other missed slot is skipped, and said, for the audit trail. Everything up to
 * `through` is decided, so the caller keeps `through` as the next `lastSlotMs`, and a slot
 * is never decided twice. The work is bounded by `max`, not by the downtime: a schedule
 * every second after a month away walks back from now, lists the latest skipped ones, and
 * counts the rest up to SKIP_COUNT_CAP, then says "at least".
 */
export function dueSlots(schedule: Schedule, q: DueQuery): DueSlots {
  const { lastSlotMs, createdAtMs, nowMs, catchUp, max = DEFAULT_MAX_DUE } = q;
  checkInstant('createdAtMs', createdAtMs);
  checkInstant('nowMs', nowMs);
  if (lastSlotMs !== null) checkInstant('lastSlotMs', lastSlotMs);
  checkCount('max', max, 1, MAX_DUE);
  // Instants are whole milliseconds: "at or after createdAtMs" is "after createdAtMs - 1".
  const floor = Math.max(lastSlotMs ?? -Infinity, createdAtMs - 1);
  const next = schedule.slotAfter(nowMs);

  // Newest first, back from now: enough to fire and to list, and one more to know if there are more.
  const fireCap = catchUp === 'all' ? max : 1;
  const recent: number[] = [];
  let t = schedule.slotBefore(nowMs + 1);
  while (t !== null && t > floor && recent.length <= fireCap + max) {
    recent.push(t);
    t = schedule.slotBefore(t);
  }
  if (recent.length === 0) return { ...NOTHING, next };

  const latest = recent[0];
  const fireCount =
    catchUp === 'all' ? Math.min(max, recent.length) : catchUp === 'latest' || nowMs - latest <= ON_TIME_MS ? 1 : 0;
  const fire = recent.slice(0, fireCount).reverse();
  const listed = recent.slice(fireCount, fireCount + max).reverse();
  const unlisted = recent.length > fireCount + max || (t !== null && t > floor);
  if (!unlisted) {
    return {
      fire,
      skipped: listed,
      skippedCount: listed.length,
      skippedAtLeast: false,
      firstSkipped: listed[0] ?? null,
      through: latest,
      next,
    };
  }
  const older = countBefore(schedule, floor, listed[0]);
  return {
    fire,
    skipped: listed,
    skippedCount: listed.length + older.count,
    skippedAtLeast: older.atLeast,
    firstSkipped: older.first,
    through: latest,
    next,
  };
}

const NOTHING = {
  fire: [],
  skipped: [],
  skippedCount: 0,
  skippedAtLeast: false,
  firstSkipped: null,
  through: null,
} as const;

/** The slots after `floor` and before `end`, counted up to SKIP_COUNT_CAP, and the first of them. */
function countBefore(schedule: Schedule, floor: number, end: number) {
  const first = schedule.slotAfter(floor);
  let count = 0;
  for (let t = first; t !== null && t < end; t = schedule.slotAfter(t)) {
    if (++count < SKIP_COUNT_CAP) continue;
    const after = schedule.slotAfter(t);
    return { count, atLeast: after !== null && after < end, first };
  }
  return { count, atLeast: false, first };
}
