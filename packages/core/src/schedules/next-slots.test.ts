import { describe, expect, it } from 'vitest';
import { nextSlots } from './next-slots.js';
import { parseSchedule } from './parse-schedule.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number[]) => ms.map((t) => new Date(t).toISOString().replace('.000Z', 'Z'));
const berlin = (cron: string) => parseSchedule({ cron, tz: 'Europe/Berlin' });
/** The next n slots of `cron` in Berlin after `after`, as UTC ISO strings. */
const next = (cron: string, after: string, n: number) => iso(nextSlots(berlin(cron), at(after), n));

describe('nextSlots', () => {
  it('lists the next slots strictly after the instant, oldest first', () => {
    const daily = parseSchedule({ cron: '0 9 * * *', tz: 'UTC' });
    expect(iso(nextSlots(daily, at('2026-01-01T08:59:59.999Z'), 2))).toEqual([
      '2026-01-01T09:00:00Z',
      '2026-01-02T09:00:00Z',
    ]);
    expect(iso(nextSlots(daily, at('2026-01-01T09:00:00Z'), 1))).toEqual(['2026-01-02T09:00:00Z']);
    const everySecond = parseSchedule({ cron: '* * * * * *', tz: 'UTC' });
    expect(iso(nextSlots(everySecond, at('2026-01-01T09:00:00.500Z'), 2))).toEqual([
      '2026-01-01T09:00:01Z',
      '2026-01-01T09:00:02Z',
    ]);
  });

  it("reads the cron on the zone's clock, weekdays included", () => {
    const weekdays = parseSchedule({ cron: '0 9 * * 1-5', tz: 'America/New_York' });
    // Friday 2026-01-02, then Monday 5th: 09:00 EST is 14:00 UTC.
    expect(iso(nextSlots(weekdays, at('2026-01-02T00:00:00Z'), 2))).toEqual([
      '2026-01-02T14:00:00Z',
      '2026-01-05T14:00:00Z',
    ]);
  });

  it('gives none for n = 0, and fewer only where the cron library stops looking (the year 3000)', () => {
    const hourly = parseSchedule({ cron: '0 * * * *', tz: 'UTC' });
    expect(nextSlots(hourly, 0, 0)).toEqual([]);
    expect(iso(nextSlots(hourly, at('2999-12-31T21:30:00Z'), 5))).toEqual([
      '2999-12-31T22:00:00Z',
      '2999-12-31T23:00:00Z',
    ]);
  });

  it("refuses a count or an instant that is a caller's bug", () => {
    const hourly = parseSchedule({ cron: '0 * * * *', tz: 'UTC' });
    expect(() => nextSlots(hourly, 0, 1001)).toThrow(RangeError);
    expect(() => nextSlots(hourly, 0, 1.5)).toThrow(RangeError);
    expect(() => nextSlots(hourly, Number.NaN, 1)).toThrow(RangeError);
  });
});

// Europe/Berlin 2026: the clock jumps 02:00 CET → 03:00 CEST on 29 March (at 01:00 UTC) and
// goes back 03:00 CEST → 02:00 CET on 25 October (at 01:00 UTC).
describe('nextSlots across DST in Europe/Berlin', () => {
  it('a time the clock jumps over fires once, at the jump (02:30 → 03:00 CEST = 01:00 UTC)', () => {
    expect(next('30 2 * * *', '2026-03-27T12:00:00Z', 4)).toEqual([
      '2026-03-28T01:30:00Z', // 02:30 CET
      '2026-03-29T01:00:00Z', // 03:00 CEST: there is no 02:30 that day
      '2026-03-30T00:30:00Z', // 02:30 CEST
      '2026-03-31T00:30:00Z',
    ]);
    expect(next('0 30 2 * * *', '2026-03-28T12:00:00Z', 1)).toEqual(['2026-03-29T01:00:00Z']);
  });

  it('a time the clock passes twice fires once, the first time', () => {
    expect(next('30 2 * * *', '2026-10-23T12:00:00Z', 4)).toEqual([
      '2026-10-24T00:30:00Z', // 02:30 CEST
      '2026-10-25T00:30:00Z', // the first 02:30 (CEST); not 01:30 UTC, the second
      '2026-10-26T01:30:00Z', // 02:30 CET
      '2026-10-27T01:30:00Z',
    ]);
    // Asked from inside the repeated hour, after the first 02:30: the next is the next day's.
    expect(next('30 2 * * *', '2026-10-25T00:45:00Z', 1)).toEqual(['2026-10-26T01:30:00Z']);
  });

  it('a list of hours is fixed times too: 02:00 of "0 2,14" fires at the jump, once when repeated', () => {
    expect(next('0 2,14 * * *', '2026-03-28T12:00:00Z', 4)).toEqual([
      '2026-03-28T13:00:00Z',
      '2026-03-29T01:00:00Z', // 02:00 never is that day: 03:00 CEST
      '2026-03-29T12:00:00Z',
      '2026-03-30T00:00:00Z',
    ]);
    expect(next('0 2,14 * * *', '2026-10-24T12:00:00Z', 3)).toEqual([
      '2026-10-25T00:00:00Z', // the first 02:00 (CEST)
      '2026-10-25T13:00:00Z',
      '2026-10-26T01:00:00Z',
    ]);
  });

  it('hourly fires every real hour across both changes: none twice, none lost', () => {
    expect(next('0 * * * *', '2026-03-28T22:30:00Z', 5)).toEqual([
      '2026-03-28T23:00:00Z', // 00:00 CET
      '2026-03-29T00:00:00Z', // 01:00 CET
      '2026-03-29T01:00:00Z', // 03:00 CEST (02:00 never is)
      '2026-03-29T02:00:00Z', // 04:00 CEST
      '2026-03-29T03:00:00Z',
    ]);
    expect(next('0 * * * *', '2026-10-24T22:30:00Z', 5)).toEqual([
      '2026-10-24T23:00:00Z', // 01:00 CEST
      '2026-10-25T00:00:00Z', // 02:00 CEST
      '2026-10-25T01:00:00Z', // 02:00 CET, the repeated hour
      '2026-10-25T02:00:00Z', // 03:00 CET
      '2026-10-25T03:00:00Z',
    ]);
    // The local days: 23 hours on 29 March, 25 on 25 October, each an hour after the last.
    const day = (from: string, to: string) =>
      nextSlots(berlin('0 * * * *'), at(from) - 1, 30).filter((t) => t < at(to));
    for (const [from, to, hours] of [
      ['2026-03-28T23:00:00Z', '2026-03-29T22:00:00Z', 23],
      ['2026-10-24T22:00:00Z', '2026-10-25T23:00:00Z', 25],
    ] as const) {
      const slots = day(from, to);
      expect(slots).toHaveLength(hours);
      expect(slots.every((t, i) => i === 0 || t - slots[i - 1] === 3_600_000)).toBe(true);
    }
  });

  it('every 15 minutes keeps its pace across both changes', () => {
    expect(next('*/15 * * * *', '2026-03-29T00:20:00Z', 6)).toEqual([
      '2026-03-29T00:30:00Z', // 01:30 CET
      '2026-03-29T00:45:00Z', // 01:45 CET
      '2026-03-29T01:00:00Z', // 03:00 CEST
      '2026-03-29T01:15:00Z',
      '2026-03-29T01:30:00Z',
      '2026-03-29T01:45:00Z',
    ]);
    expect(next('*/15 * * * *', '2026-10-25T00:20:00Z', 10)).toEqual([
      '2026-10-25T00:30:00Z', // 02:30 CEST
      '2026-10-25T00:45:00Z', // 02:45 CEST
      '2026-10-25T01:00:00Z', // 02:00 CET: the hour again
      '2026-10-25T01:15:00Z',
      '2026-10-25T01:30:00Z',
      '2026-10-25T01:45:00Z',
      '2026-10-25T02:00:00Z', // 03:00 CET
      '2026-10-25T02:15:00Z',
      '2026-10-25T02:30:00Z',
      '2026-10-25T02:45:00Z',
    ]);
  });

  it('America/New_York: 02:30 fires at its jump (07:00 UTC), 01:30 once when repeated (05:30 UTC)', () => {
    const ny = (cron: string, after: string) =>
      iso(nextSlots(parseSchedule({ cron, tz: 'America/New_York' }), at(after), 2));
    expect(ny('30 2 * * *', '2026-03-07T12:00:00Z')).toEqual(['2026-03-08T07:00:00Z', '2026-03-09T06:30:00Z']);
    expect(ny('30 1 * * *', '2026-10-31T12:00:00Z')).toEqual(['2026-11-01T05:30:00Z', '2026-11-02T06:30:00Z']);
  });
});
