import type { Cron } from 'croner';

/** A schedule as a person gives it and the store keeps it: a cron expression and a time zone. */
export interface ScheduleSpec {
  /** 5 fields (minute hour day-of-month month day-of-week) or 6 (a second first), or a nickname (@daily). */
  readonly cron: string;
  /** An IANA time zone name ("Europe/Berlin", "UTC"): the cron's times are read on this zone's clock. */
  readonly tz: string;
}

/** The longest cron expression taken: enough for any sane list of values, and a bound on what is parsed. */
export const MAX_CRON_CHARS = 100;
/** The longest time zone name taken (the longest IANA name has 32 characters). */
export const MAX_TZ_CHARS = 64;

/**
 * A checked schedule (made by parseSchedule): its slots are the instants at which the cron
 * expression matches the wall clock of its zone. Slots are whole seconds, in epoch ms (UTC).
 * The cron library stays inside: callers speak epoch ms.
 */
export class Schedule implements ScheduleSpec {
  readonly #job: Cron;

  constructor(
    readonly cron: string,
    readonly tz: string,
    job: Cron,
  ) {
    this.#job = job;
  }

  /** The first slot strictly after `ms`; null when there is none before the year 3000 (where croner stops looking). */
  slotAfter(ms: number): number | null {
    return this.#job.nextRun(new Date(ms))?.getTime() ?? null;
  }

  /** The latest slot strictly before `ms`; null when there is none. */
  slotBefore(ms: number): number | null {
    return this.#job.previousRuns(1, new Date(ms))[0]?.getTime() ?? null;
  }

  /** The spec to store: what parseSchedule gives back this same schedule from. */
  spec(): ScheduleSpec {
    return { cron: this.cron, tz: this.tz };
  }
}

/** A time as epoch ms that Date can hold: anything else is a caller's bug, not a person's input. */
export function checkInstant(name: string, ms: number): void {
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15)
    throw new RangeError(`${name} is not a time in epoch ms: ${ms}`);
}

/** A count a caller asks for, within min..max: a bound on the work one call may do. */
export function checkCount(name: string, n: number, min: number, max: number): void {
  if (!Number.isInteger(n) || n < min || n > max)
    throw new RangeError(`${name} must be an integer from ${min} to ${max}: ${n}`);
}
