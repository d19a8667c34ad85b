import { Cron } from 'croner';
import { UsageError } from '../errors.js';
import { capText, inert, quoted } from '../text.js';
import { MAX_CRON_CHARS, Schedule } from './schedule.js';
import type { ScheduleSpec } from './schedule.js';
import { checkZone } from './zone.js';

const EXAMPLES =
  'e.g. "0 9 * * 1-5" (09:00 on weekdays) or "*/15 * * * *" (every 15 minutes); ' +
  'fields: [second] minute hour day-of-month month day-of-week';

/** What a person gave, quoted in a line: control characters shown escaped, never acted on. */
const shown = (text: string, max: number) => quoted(inert(text, false), max);

const notCron = (cron: string, why: string) =>
  new UsageError(`cron ${shown(cron, 60)} is not a cron expression: ${why}; ${EXAMPLES}`);

/** Croner's nicknames but @reboot (a schedule has no boot to fire at). */
const NICKNAMES = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

/** Any time from which a pattern without a year field that matches some date matches again. */
const SOME_TIME = Date.UTC(2000, 0, 1);

/**
 * A cron expression and a time zone a person gave (or the store kept), checked: a Schedule,
 * or a UsageError of one line naming what is wrong and how it should look.
 *
 * - 5 fields, or 6 with seconds first (a schedule every few seconds, for trying one out); a
 *   7th field (years) is refused: a schedule repeats. Nicknames (@hourly, @daily …) are taken.
 * - When both day-of-month and day-of-week are restricted, either matching fires (as Vixie
 *   cron does); a "+" before day-of-week ("0 12 1 * +MON") asks for both.
 * - DST, as Vixie cron: a time with single values, lists or ranges in its second, minute and
 *   hour fields ("30 2 * * *", "0 2,14 * * *") fires once when the clock passes it twice (the
 *   first time) and, when the clock jumps over it, once at the jump (03:00 after 02:00→03:00).
 *   A time with a wildcard or a step there ("0 * * * *", "*\/15 * * * *", "0 0-23/2 * * *")
 *   fires at each instant the clock shows it: through a repeated hour twice, and not in an
 *   hour that never is — so an hourly schedule fires every real hour, none twice and none
 *   lost (and "*\/15 2 * * *" not at all on the day 02:00–03:00 is skipped).
 * Whitespace between fields is made single spaces, so the expression is stored as one line.
 */
export function parseSchedule(spec: ScheduleSpec): Schedule {
  const { cron: given, tz: zone } = spec;
  if (given.length > MAX_CRON_CHARS) {
    throw new UsageError(`cron ${shown(given, 40)} is ${given.length} characters long, more than ${MAX_CRON_CHARS}`);
  }
  const cron = given.trim().split(/\s+/).join(' ');
  if (!cron) throw notCron(given, 'it is empty');
  const odd = /[^\x20-\x7e]/u.exec(cron)?.[0];
  if (odd) throw notCron(given, `it holds ${shown(odd, 8)} (U+${hex(odd)}), which is not printable ASCII`);
  const fields = cron.split(' ').length;
  if (fields === 1 && cron.startsWith('@')) {
    if (!NICKNAMES.includes(cron.toLowerCase())) throw notCron(given, `${cron} is not one of ${NICKNAMES.join(', ')}`);
  } else if (fields !== 5 && fields !== 6) {
    throw notCron(
      given,
      `it has ${fields} field${fields === 1 ? '' : 's'}, not 5 (minute hour day-of-month month day-of-week) or 6 (a second first)`,
    );
  }
  const tz = checkZone(zone);
  let job: Cron;
  try {
    // "no-wildcard": a list or range of hours ("0 2,14 * * *") holds fixed times, as in Vixie
    // cron; croner's default counts it an interval job, and 02:00 would be lost on the day the
    // clock jumps over it.
    job = new Cron(cron, { timezone: tz, mode: '5-or-6-parts', fixedTimeRule: 'no-wildcard' });
  } catch (e) {
    throw notCron(given, cronWhy(e));
  }
  const schedule = new Schedule(cron, tz, job);
  if (schedule.slotAfter(SOME_TIME) === null) throw notCron(given, 'it matches no date (like the 30th of February)');
  return schedule;
}

const hex = (c: string) => (c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0');

/**
 * Croner's reason, as a clause of our line: "CronPattern: Invalid value for hour: 25." →
 * "invalid value for hour: 25". Its "configuration entry 1 (a)" counts from a seconds field a
 * 5-field expression does not have, so the field is named by what it holds instead.
 */
function cronWhy(e: unknown): string {
  const text = (e instanceof Error ? e.message : String(e))
    .replace(/^CronPattern:\s*/, '')
    .replace(/\.$/, '')
    .replace(/configuration entry \d+ \(([^)]*)\)/, 'field "$1"');
  return capText(text.charAt(0).toLowerCase() + text.slice(1), 160);
}
