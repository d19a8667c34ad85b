import { describe, expect, it } from 'vitest';
import { dueSlots } from './due-slots.js';
import { nextSlots } from './next-slots.js';
import { parseSchedule } from './parse-schedule.js';
import type { Schedule } from './schedule.js';
import type { CatchUp } from './schedule-options.js';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString().replace('.000Z', 'Z'));
const hourly = parseSchedule({ cron: '0 * * * *', tz: 'UTC' });

interface Ask {
  readonly catchUp: CatchUp;
  readonly now: string;
  readonly last?: string;
  readonly created?: string;
  readonly max?: number;
}

/** dueSlots with times as ISO strings, in and out. */
function due(schedule: Schedule, { catchUp, now, last, created = '2026-01-01T00:00:00Z', max }: Ask) {
  const d = dueSlots(schedule, {
    catchUp,
    max,
    lastSlotMs: last ? at(last) : null,
    createdAtMs: at(created),
    nowMs: at(now),
  });
  return {
    fire: d.fire.map(iso),
    skipped: d.skipped.map(iso),
    skippedCount: d.skippedCount,
    skippedAtLeast: d.skippedAtLeast,
    firstSkipped: iso(d.firstSkipped),
    through: iso(d.through),
    next: iso(d.next),
  };
}

const none = { skipped: [], skippedCount: 0, skippedAtLeast: false, firstSkipped: null };

describe('dueSlots on time', () => {
  it('fires the slot that just came, whatever the catch-up, and says when the next one is', () => {
    for (const catchUp of ['none', 'latest', 'all'] as const) {
      expect(due(hourly, { catchUp, last: '2026-03-02T09:00:00Z', now: '2026-03-02T10:00:05Z' })).toEqual({
        ...none,
        fire: ['2026-03-02T10:00:00Z'],
        through: '2026-03-02T10:00:00Z',
        next: '2026-03-02T11:00:00Z',
      });
    }
  });

  it('fires nothing between slots, nor a slot already decided', () => {
    const idle = { ...none, fire: [], through: null, next: '2026-03-02T11:00:00Z' };
    expect(due(hourly, { catchUp: 'latest', last: '2026-03-02T10:00:00Z', now: '2026-03-02T10:30:00Z' })).toEqual(idle);
    expect(due(hourly, { catchUp: 'all', last: '2026-03-02T10:00:00Z', now: '2026-03-02T10:00:00Z' })).toEqual(idle);
  });

  it('counts slots from the creation on, a slot at that very instant included, none before', () => {
    const q = { catchUp: 'latest', now: '2026-03-02T10:00:00Z' } as const;
    expect(due(hourly, { ...q, created: '2026-03-02T10:00:00Z' }).fire).toEqual(['2026-03-02T10:00:00Z']);
    expect(due(hourly, { ...q, created: '2026-03-02T10:00:00.001Z' }).fire).toEqual([]);
    // Created at 09:30, first looked at 12:05: 10:00 and 11:00 were missed, 12:00 is due.
    expect(
      due(hourly, { catchUp: 'latest', created: '2026-03-02T09:30:00Z', now: '2026-03-02T12:05:00Z' }),
    ).toMatchObject({
      fire: ['2026-03-02T12:00:00Z'],
      skipped: ['2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z'],
    });
  });
});

describe('dueSlots after downtime (last fired 09:00, back at 14:10: 10:00 … 14:00 missed)', () => {
  const down = { last: '2026-03-02T09:00:00Z', now: '2026-03-02T14:10:00Z' };
  const missed = ['10', '11', '12', '13', '14'].map((h) => `2026-03-02T${h}:00:00Z`);
  const decided = { through: '2026-03-02T14:00:00Z', next: '2026-03-02T15:00:00Z' };

  it('latest: one run, for the latest; the others skipped and said', () => {
    expect(due(hourly, { ...down, catchUp: 'latest' })).toEqual({
      fire: [missed[4]],
      skipped: missed.slice(0, 4),
      skippedCount: 4,
      skippedAtLeast: false,
      firstSkipped: missed[0],
      ...decided,
    });
  });

  it('none: nothing fires, every missed slot is skipped — unless the latest is under a minute late', () => {
    expect(due(hourly, { ...down, catchUp: 'none' })).toEqual({
      fire: [],
      skipped: missed,
      skippedCount: 5,
      skippedAtLeast: false,
      firstSkipped: missed[0],
      ...decided,
    });
    expect(due(hourly, { ...down, now: '2026-03-02T14:01:00Z', catchUp: 'none' })).toMatchObject({
      fire: [missed[4]],
      skipped: missed.slice(0, 4),
    });
    expect(due(hourly, { ...down, now: '2026-03-02T14:01:00.001Z', catchUp: 'none' }).fire).toEqual([]);
  });

  it('all: each, oldest first; past max only the latest max, the older ones skipped', () => {
    expect(due(hourly, { ...down, catchUp: 'all' })).toEqual({ ...none, fire: missed, ...decided });
    expect(due(hourly, { ...down, catchUp: 'all', max: 2 })).toEqual({
      fire: missed.slice(3),
      skipped: missed.slice(1, 3), // listed: the latest 2 skipped; counted: all 3

      skippedCount: 3,
      skippedAtLeast: false,
      firstSkipped: missed[0],
      ...decided,
    });
  });

  it('lists at most max skipped slots, the latest, and counts the rest', () => {
    expect(due(hourly, { ...down, catchUp: 'latest', max: 2 })).toEqual({
      fire: [missed[4]],
      skipped: missed.slice(2, 4),
      skippedCount: 4,
      skippedAtLeast: false,
      firstSkipped: missed[0],
      ...decided,
    });
    expect(due(hourly, { ...down, catchUp: 'none', max: 4 })).toMatchObject({
      skipped: missed.slice(1),
      skippedCount: 5,
      firstSkipped: missed[0],
    });
  });
});

describe('dueSlots stays cheap however long the downtime', () => {
  const everySecond = parseSchedule({ cron: '* * * * * *', tz: 'UTC' });

  it('a schedule every second after a month away: a few thousand slots looked at, not 2.7 million', () => {
    const started = performance.now();
    const d = due(everySecond, { catchUp: 'latest', last: '2026-01-01T00:00:00Z', now: '2026-02-01T00:00:00.500Z' });
    expect(performance.now() - started).toBeLessThan(2_000); // walking every slot takes minutes
    expect(d).toMatchObject({
      fire: ['2026-02-01T00:00:00Z'],
      skippedCount: 1100, // 100 listed, then counted up to 1000: "1100+"
      skippedAtLeast: true,
      firstSkipped: '2026-01-01T00:00:01Z',
      through: '2026-02-01T00:00:00Z',
      next: '2026-02-01T00:00:01Z',
    });
    expect(d.skipped).toHaveLength(100);
    expect([d.skipped[0], d.skipped[99]]).toEqual(['2026-01-31T23:58:20Z', '2026-01-31T23:59:59Z']);
  });

  it('counts exactly up to the cap, and says "at least" only past it', () => {
    // 1 fired + 100 listed + 1000 counted = 1101 slots after the last one.
    const q = { catchUp: 'latest', last: '2026-01-01T00:00:00Z' } as const;
    expect(due(everySecond, { ...q, now: '2026-01-01T00:18:21Z' })).toMatchObject({
      skippedCount: 1100,
      skippedAtLeast: false,
    });
    expect(due(everySecond, { ...q, now: '2026-01-01T00:18:22Z' })).toMatchObject({
      skippedCount: 1100,
      skippedAtLeast: true,
    });
  });

  it("refuses a max or an instant that is a caller's bug", () => {
    const q = { lastSlotMs: null, createdAtMs: 0, nowMs: 0, catchUp: 'all' } as const;
    expect(() => dueSlots(hourly, { ...q, max: 0 })).toThrow(RangeError);
    expect(() => dueSlots(hourly, { ...q, max: 1001 })).toThrow(RangeError);
    expect(() => dueSlots(hourly, { ...q, nowMs: Number.POSITIVE_INFINITY })).toThrow(RangeError);
    expect(() => dueSlots(hourly, { ...q, lastSlotMs: 1.5 })).toThrow(RangeError);
  });
});

describe('dueSlots across DST in Europe/Berlin', () => {
  const berlin = (cron: string) => parseSchedule({ cron, tz: 'Europe/Berlin' });

  it('a worker ticking every 7 minutes fires each slot exactly once, as nextSlots lists them', () => {
    for (const [cron, from] of [
      ['*/15 * * * *', '2026-03-28T22:00:00Z'],
      ['*/15 * * * *', '2026-10-24T22:00:00Z'],
      ['30 2 * * *', '2026-03-27T22:00:00Z'],
      ['30 2 * * *', '2026-10-23T22:00:00Z'],
    ]) {
      const schedule = berlin(cron);
      const start = at(from);
      const end = start + 3 * 86_400_000;
      const fired: number[] = [];
      let last: number | null = null;
      let now = start;
      for (; now + 7 * 60_000 < end; now += 7 * 60_000) {
        const d = dueSlots(schedule, { lastSlotMs: last, createdAtMs: start, nowMs: now, catchUp: 'latest' });
        expect(d.skipped).toEqual([]);
        fired.push(...d.fire);
        last = d.through ?? last;
      }
      expect(fired.length).toBeGreaterThan(2);
      expect(fired).toEqual(nextSlots(schedule, start - 1, 1000).filter((t) => t <= now - 7 * 60_000));
    }
  });

  it('after downtime over the changes: catch-up all fires the repeated hour twice and the jumped-over 02:30 once', () => {
    expect(
      due(berlin('0 * * * *'), { catchUp: 'all', last: '2026-10-24T23:00:00Z', now: '2026-10-25T03:30:00Z' }).fire,
    ).toEqual([
      '2026-10-25T00:00:00Z', // 02:00 CEST
      '2026-10-25T01:00:00Z', // 02:00 CET
      '2026-10-25T02:00:00Z',
      '2026-10-25T03:00:00Z',
    ]);
    expect(
      due(berlin('30 2 * * *'), { catchUp: 'all', last: '2026-03-28T01:30:00Z', now: '2026-03-29T06:00:00Z' }),
    ).toMatchObject({
      fire: ['2026-03-29T01:00:00Z'], // 03:00 CEST, at the jump
      through: '2026-03-29T01:00:00Z',
      next: '2026-03-30T00:30:00Z',
    });
  });
});
