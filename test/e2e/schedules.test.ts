import { afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { withClock } from './clock-file.js';
import { killLeftovers, projectOn, startWorker, stopWorker, trail, until, type Project } from './harness.js';

/**
 * Schedules through the built binary, the store's clock moved by SHOP_CLOCK_FILE (no hour waits):
 * every slot fired exactly once by three racing workers on PostgreSQL; one run per slot of
 * "30 2 * * *" across both DST changes in Europe/Berlin; each catch-up policy after downtime,
 * its skipped slots recorded; overlap skip recorded while the previous run waits.
 */

afterEach(killLeftovers);
const cluster = usePgCluster();

interface Slot {
  slot: string;
  outcome: string;
  run_id: number | null;
  decided_by: string;
}

const QUICK = 'function workflow(prompt)\n  return context().trigger.name .. " " .. context().trigger.data.slot\nend\n';
const NAP = 'function workflow(prompt)\n  sleep(86400)\n  return "rested"\nend\n';

/** The clock file set so that the store's now() is `iso` (and runs on from there in real time). */
const clockAt = (advance: (seconds: number) => void) => (iso: string) => advance((Date.parse(iso) - Date.now()) / 1000);

function shopOk(p: Project, args: string[]): string {
  const r = p.shop(args);
  expect([args, r.code, r.stderr]).toEqual([args, 0, '']);
  return r.stdout;
}

/** A schedule's decided slots, oldest first. */
const slots = (p: Project, name: string): Slot[] =>
  (JSON.parse(shopOk(p, ['schedule', 'slots', name, '--limit', '1000', '--json'])) as Slot[]).reverse();
const outcomes = (p: Project, name: string) => slots(p, name).map((s) => [s.slot, s.outcome]);

/** A project whose workers sweep every second (a lease of 3 s), so a clock moved on is seen within one. */
async function scheduleProject(store: 'sqlite' | 'postgres', prefix: string) {
  const p = await projectOn(store, cluster, prefix);
  p.env.SHOP_LEASE_SECONDS = '3';
  p.write('workflows/quick.lua', QUICK);
  p.write('workflows/nap.lua', NAP);
  return { p, setClock: clockAt(withClock(p)) };
}

describe('schedules on PostgreSQL with three workers', () => {
  it('a schedule every 5 s over a minute of schedule time: every slot once, none missed, each its own run', async () => {
    const { p, setClock } = await scheduleProject('postgres', 'sched_three');
    setClock('2026-06-01T08:00:00.500Z');
    shopOk(p, [
      'schedule',
      'add',
      'pulse',
      'quick',
      '--cron',
      '*/5 * * * * *',
      '--tz',
      'UTC',
      '--catch-up',
      'all',
      '--overlap',
      'allow',
    ]);
    const workers = [await startWorker(p), await startWorker(p), await startWorker(p)];
    // A minute of schedule time in about twelve seconds: the clock moves on 5 s every second.
    for (let i = 1; i <= 12; i++) {
      setClock(new Date(Date.parse('2026-06-01T08:00:00.500Z') + i * 5000).toISOString());
      await new Promise((r) => setTimeout(r, 1000));
    }
    await until(
      'the slot at 08:01:00 to be decided',
      () => slots(p, 'pulse').some((s) => s.slot === '2026-06-01T08:01:00+00:00'),
      { timeoutMs: 20_000, everyMs: 300 },
    );
    await until('every run to complete', () => p.list().every((r) => r.status === 'completed'), {
      timeoutMs: 60_000,
      everyMs: 500,
    });
    for (const w of workers) expect(await stopWorker(w)).toBe(0);
    const decided = slots(p, 'pulse');
    // Each 5 s from 08:00:05 on, once, fired; the ones after 08:01:00 came in real time meanwhile.
    const expected = decided.map((_, i) =>
      new Date(Date.parse('2026-06-01T08:00:05Z') + i * 5000).toISOString().replace('.000Z', '+00:00'),
    );
    expect(decided.map((s) => s.slot)).toEqual(expected);
    expect(decided.length).toBeGreaterThanOrEqual(12);
    expect(decided.filter((s) => s.outcome !== 'fired')).toEqual([]);
    const runIds = decided.map((s) => s.run_id);
    expect(new Set(runIds).size).toBe(decided.length);
    const runs = p.list();
    expect(runs).toHaveLength(decided.length);
    expect(runs.map((r) => r.result).sort()).toEqual(decided.map((s) => `pulse ${s.slot}`).sort());
    // Each run taken by one worker, once.
    for (const id of runIds) expect(trail(p, id!).filter((e) => e.type === 'run_taken')).toHaveLength(1);
  }, 150_000);
});

describe('a schedule across DST in Europe/Berlin ("30 2 * * *")', () => {
  it('spring forward: one run at the jump (03:00 CEST); fall back: one run, at the first 02:30', async () => {
    const { p, setClock } = await scheduleProject('sqlite', 'sched_dst');
    setClock('2026-03-28T12:00:00Z');
    shopOk(p, [
      'schedule',
      'add',
      'spring',
      'quick',
      '--cron',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--catch-up',
      'all',
    ]);
    const w = await startWorker(p);
    const decidedAt = async (name: string, slot: string) =>
      until(`${name}'s slot ${slot}`, () => slots(p, name).some((s) => s.slot === slot), {
        timeoutMs: 20_000,
        everyMs: 300,
      });
    setClock('2026-03-29T01:00:01Z');
    await decidedAt('spring', '2026-03-29T03:00:00+02:00');
    setClock('2026-03-30T00:30:01Z');
    await decidedAt('spring', '2026-03-30T02:30:00+02:00');
    expect(outcomes(p, 'spring')).toEqual([
      ['2026-03-29T03:00:00+02:00', 'fired'],
      ['2026-03-30T02:30:00+02:00', 'fired'],
    ]);
    // Paused over the summer: nothing fires, nothing is caught up.
    expect(shopOk(p, ['schedule', 'pause', 'spring'])).toMatch(/^schedule spring paused/);
    setClock('2026-10-24T12:00:00Z');
    shopOk(p, [
      'schedule',
      'add',
      'fall',
      'quick',
      '--cron',
      '30 2 * * *',
      '--tz',
      'Europe/Berlin',
      '--catch-up',
      'all',
    ]);
    setClock('2026-10-25T00:30:01Z');
    await decidedAt('fall', '2026-10-25T02:30:00+02:00');
    // 02:30 again, an hour later (CET): not a second run.
    setClock('2026-10-25T01:30:01Z');
    await new Promise((r) => setTimeout(r, 2000));
    setClock('2026-10-26T01:30:01Z');
    await decidedAt('fall', '2026-10-26T02:30:00+01:00');
    expect(outcomes(p, 'fall')).toEqual([
      ['2026-10-25T02:30:00+02:00', 'fired'],
      ['2026-10-26T02:30:00+01:00', 'fired'],
    ]);
    expect(outcomes(p, 'spring')).toHaveLength(2);
    await until('the runs to complete', () => p.list().every((r) => r.status === 'completed'), 20_000);
    expect(p.list()).toHaveLength(4);
    expect(await stopWorker(w)).toBe(0);
  }, 120_000);
});

describe.each(['sqlite', 'postgres'] as const)('catch-up and overlap on %s', (store) => {
  it('after downtime: none fires nothing, latest one run, all each; overlap skip records the slot while its run sleeps', async () => {
    const { p, setClock } = await scheduleProject(store, 'sched_catch');
    setClock('2026-05-04T09:30:00Z');
    for (const policy of ['none', 'latest', 'all'])
      shopOk(p, [
        'schedule',
        'add',
        `cu-${policy}`,
        'quick',
        '--cron',
        '0 * * * *',
        '--tz',
        'UTC',
        '--catch-up',
        policy,
        '--overlap',
        'allow',
      ]);
    shopOk(p, ['schedule', 'add', 'napper', 'nap', '--cron', '0 * * * *', '--tz', 'UTC']);
    setClock('2026-05-04T10:00:01Z');
    let w = await startWorker(p);
    const names = ['cu-none', 'cu-latest', 'cu-all', 'napper'];
    await until('10:00 fired by each', () => names.every((n) => slots(p, n).length === 1), {
      timeoutMs: 20_000,
      everyMs: 300,
    });
    await until(
      'the quick runs to complete',
      () => p.list().filter((r) => r.status === 'completed').length === 3,
      20_000,
    );
    expect(await stopWorker(w)).toBe(0);
    // Down from 10:00 to 14:10: 11:00 … 14:00 missed.
    setClock('2026-05-04T14:10:00Z');
    w = await startWorker(p);
    await until('14:00 decided by each', () => names.every((n) => slots(p, n).length === 5), {
      timeoutMs: 20_000,
      everyMs: 300,
    });
    const missed = ['11', '12', '13', '14'].map((h) => `2026-05-04T${h}:00:00+00:00`);
    const first = ['2026-05-04T10:00:00+00:00', 'fired'];
    expect(outcomes(p, 'cu-none')).toEqual([first, ...missed.map((s) => [s, 'skipped_missed'])]);
    expect(outcomes(p, 'cu-latest')).toEqual([
      first,
      ...missed.slice(0, 3).map((s) => [s, 'skipped_missed']),
      [missed[3], 'fired'],
    ]);
    expect(outcomes(p, 'cu-all')).toEqual([first, ...missed.map((s) => [s, 'fired'])]);
    // The napping run of 10:00 is still waiting: 14:00 is skipped for overlap, the older ones missed.
    expect(outcomes(p, 'napper')).toEqual([
      first,
      ...missed.slice(0, 3).map((s) => [s, 'skipped_missed']),
      [missed[3], 'skipped_overlap'],
    ]);
    const listed = JSON.parse(shopOk(p, ['schedule', 'list', '--json'])) as {
      name: string;
      last_slot: { outcome: string };
    }[];
    expect(listed.map((s) => [s.name, s.last_slot.outcome])).toEqual([
      ['cu-all', 'fired'],
      ['cu-latest', 'fired'],
      ['cu-none', 'skipped_missed'],
      ['napper', 'skipped_overlap'],
    ]);
    // The latest run says what it stood for.
    const latestRun = slots(p, 'cu-latest').at(-1)!.run_id!;
    expect(trail(p, latestRun)[0]).toMatchObject({
      type: 'run_started',
      actor: 'schedule:cu-latest',
      data: { missed: 3, first_missed: missed[0] },
    });
    await until(
      'the worker to say so',
      () => /schedule napper: 1 slot skipped, its previous run is not ended/.test(w.output()),
      10_000,
    );
    expect(w.output()).toContain(
      'schedule cu-none: 4 slots skipped, missed (catch-up): 2026-05-04T11:00:00+00:00 … 2026-05-04T14:00:00+00:00',
    );
    expect(await stopWorker(w)).toBe(0);
  }, 120_000);
});

describe('shop schedule on bad input', () => {
  it('one line and exit 2 (5 for an unknown workflow or schedule); nothing recorded', async () => {
    const { p } = await scheduleProject('sqlite', 'sched_bad');
    const cases: [string[], number, RegExp][] = [
      [
        ['add', 'x', 'quick', '--cron', '61 * * * *'],
        2,
        /^shop: cron "61 \* \* \* \*" is not a cron expression: invalid value for minute/,
      ],
      [
        ['add', 'x', 'quick', '--cron', '0 * * * *', '--tz', 'Mars/Base'],
        2,
        /^shop: time zone "Mars\/Base" is unknown/,
      ],
      [['add', 'Bad Name', 'quick', '--cron', '0 * * * *'], 2, /^shop: a schedule's name is 1 to 64 of a-z 0-9/],
      [
        ['add', 'x', 'quick', '--cron', '0 * * * *', '--overlap', 'maybe'],
        2,
        /^shop: overlap "maybe" is not one of skip/,
      ],
      [
        ['add', 'x', 'quick', '--cron', '0 * * * *', '--catch-up', 'some'],
        2,
        /^shop: catch-up "some" is not one of none/,
      ],
      [['add', 'x', 'quick'], 2, /^shop: missing --cron "EXPR"/],
      [['add', 'x', 'nope', '--cron', '0 * * * *'], 5, /^shop: unknown workflow "nope"/],
      [['list', '--cron', '0 * * * *'], 2, /^shop: --cron goes with shop schedule add, not list/],
      [['pause', 'none'], 5, /^shop: no schedule named none/],
      [['run', 'none'], 5, /^shop: no schedule named none/],
    ];
    for (const [args, code, line] of cases) {
      const r = p.shop(['schedule', ...args]);
      expect([args, r.code, r.stderr.trim().split('\n').length]).toEqual([args, code, 1]);
      expect(r.stderr).toMatch(line);
    }
    expect(JSON.parse(shopOk(p, ['schedule', 'list', '--json']))).toEqual([]);
    shopOk(p, ['schedule', 'add', 'x', 'quick', '--cron', '0 * * * *']);
    const again = p.shop(['schedule', 'add', 'x', 'quick', '--cron', '5 * * * *']);
    expect([again.code, again.stderr]).toEqual([
      2,
      'shop: a schedule named x exists already: remove it first (shop schedule remove x) or pick another name\n',
    ]);
    // run: one queued run now, trigger schedule, no slot.
    expect(shopOk(p, ['schedule', 'run', 'x'])).toMatch(/^run 1 queued \(quick, schedule x\)/);
    expect(p.status(1)).toMatchObject({
      status: 'queued',
      trigger: { kind: 'schedule', name: 'x' },
    });
    expect(slots(p, 'x')).toEqual([]);
    expect(shopOk(p, ['schedule', 'remove', 'x'])).toBe('schedule x removed (its runs stay)\n');
  }, 60_000);
});
