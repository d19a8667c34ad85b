import { afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import {
  killLeftovers,
  makeProject,
  projectOn,
  runId,
  startWorker,
  stopWorker,
  trail,
  until,
  type Project,
} from './harness.js';
import { tickRun, withClock } from './clock-file.js';

/**
 * sleep() through the built binary, on SQLite and on PostgreSQL: a run that waits on time
 * exits 7 and says until when; a worker wakes it at its due time (the store's clock, here
 * fast-forwarded by SHOP_CLOCK_FILE) and not before, once; resume before it is due leaves it
 * waiting; --wait keeps the process through it.
 */

afterEach(killLeftovers);
const cluster = usePgCluster();

const NAP = 'function workflow(prompt)\n  log("before")\n  sleep(60)\n  log("after")\n  return "rested"\nend\n';

const ofType = (p: Project, id: number, type: string) => trail(p, id).filter((e) => e.type === type);

const project = (store: 'sqlite' | 'postgres') => projectOn(store, cluster, 'sleep');

describe.each(['sqlite', 'postgres'] as const)('sleep() on %s', (store) => {
  it('exits 7 saying until when; not in the inbox but in list; resume before due is 7 again; replay passes, with other seconds too', async () => {
    const p = await project(store);
    const advance = withClock(p);
    p.write('workflows/nap.lua', NAP);
    const r = p.shop(['run', 'nap']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(7);
    const id = runId(r);
    expect(r.stdout).toMatch(
      new RegExp(
        `run ${id} waits on timer until \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d; no person is needed: shop watch resumes it then`,
      ),
    );

    const s = p.status(id);
    expect(s).toMatchObject({ status: 'waiting', pending: null, asks: [], waiting_on: [{ kind: 'timer', key: '1' }] });
    const dueAt = Date.parse(s.waiting_on[0]!.until!);
    expect(dueAt - Date.parse(s.created_at)).toBeGreaterThanOrEqual(59_000);
    expect(dueAt - Date.parse(s.created_at)).toBeLessThan(65_000);
    expect(s.waiting_for).toMatch(/^timer until \d\d:\d\d:\d\d [+-]\d\d:\d\d$/);
    expect(JSON.parse(p.shop(['inbox', '--json']).stdout)).toEqual([]);
    expect(p.list().map((x) => [x.id, x.status])).toEqual([[id, 'waiting']]);
    expect(JSON.parse(p.shop(['list', '--active', '--json']).stdout).map((x: { id: number }) => x.id)).toEqual([id]);

    // Not due yet: resume replays to the sleep and leaves it waiting, its due time unmoved.
    advance(30);
    const again = p.shop(['resume', String(id)]);
    expect([again.code, again.stderr]).toEqual([7, '']);
    expect(again.stdout).toContain(`run ${id} waits on timer until`);
    expect(p.status(id).waiting_on[0]!.until).toBe(s.waiting_on[0]!.until);
    expect(p.shop(['replay', String(id)]).code).toBe(0);
    // The due time is recorded when the call first runs: other seconds in the file are no mismatch, and do not move it.
    p.write('workflows/nap.lua', NAP.replace('sleep(60)', 'sleep(5)'));
    expect(p.shop(['replay', String(id)]).code).toBe(0);
    expect(p.shop(['resume', String(id)]).code).toBe(7);
    expect(p.status(id).waiting_on[0]!.until).toBe(s.waiting_on[0]!.until);
  }, 120_000);

  it('a worker wakes it at its due time, not before, once', async () => {
    const p = await project(store);
    const advance = withClock(p);
    p.write('workflows/nap.lua', NAP);
    const r = p.shop(['run', 'nap']);
    expect(r.code).toBe(7);
    const id = runId(r);
    const s = p.status(id);
    // A worker does not wake it before its time: it has woken a run due by then, and left this one asleep …
    const tick = tickRun(p, 10);
    advance(30);
    const w = await startWorker(p);
    await until('the worker to wake the run due by now', () => p.status(tick).status === 'completed');
    expect(p.status(id).status).toBe('waiting');
    expect(ofType(p, id, 'timer_fired')).toEqual([]);
    // … and wakes it once it is due (the clock file moved past it).
    advance(61);
    await until('the run to complete', () => p.status(id).status === 'completed', 60_000);
    expect(p.status(id).result).toBe('rested');
    expect(ofType(p, id, 'timer_fired')).toEqual([expect.objectContaining({ key: '1', actor: 'system:timer' })]);
    expect(ofType(p, id, 'wait_started')).toEqual([
      expect.objectContaining({ key: '1', data: { kind: 'timer', until: s.waiting_on[0]!.until } }),
    ]);
    // Its lines as a person reads them (complete once it has exited: a pipe gets them as the process ends).
    expect(await stopWorker(w)).toBe(0);
    expect(w.output()).toContain(`run ${id} (nap): resuming (its time came)`);
    expect(w.output()).not.toContain('for a person');
  }, 120_000);

  it('a driver killed mid-sleep: a worker started later wakes it at due, once', async () => {
    const p = await project(store);
    const advance = withClock(p);
    p.env.SHOP_LEASE_SECONDS = '5';
    p.write('workflows/nap.lua', NAP);
    const driver = p.spawnShop(['run', 'nap', '--wait']);
    await until('the driver to sleep', () => driver.output().includes('[1] waits on timer until'));
    const id = runId(driver.output());
    driver.child.kill('SIGKILL');
    await driver.exited;
    expect(p.status(id).status).toBe('waiting');

    // Past the dead driver's lease, not past the due time: still waiting (a sleeping run needs no owner),
    // once the worker has woken a run due by then.
    const tick = tickRun(p, 10);
    advance(20);
    const w = await startWorker(p);
    await until('the worker to wake the run due by now', () => p.status(tick).status === 'completed');
    expect(p.status(id).status).toBe('waiting');
    advance(61);
    await until('the run to complete', () => p.status(id).status === 'completed', 60_000);
    expect(ofType(p, id, 'timer_fired')).toHaveLength(1);
    expect(ofType(p, id, 'log').map((e) => e.data?.message)).toEqual(['before', 'after']);
    expect(await stopWorker(w)).toBe(0);
  }, 120_000);
});

describe('sleep() in one process', () => {
  it('shop run --wait keeps the process through a real 1 s sleep and completes', () => {
    const p = makeProject();
    p.write('workflows/short.lua', 'function workflow(prompt)\n  sleep(1)\n  return "woke"\nend\n');
    const started = Date.now();
    const r = p.shop(['run', 'short', '--wait']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(r.stdout).toContain('[1] waits on timer until');
    expect(r.stdout).toContain('[1] its timer fired; resuming');
    expect(r.stdout).toContain(`run ${runId(r)} completed: "woke"`);
  }, 60_000);

  it('sleep(0) and a sleep_until in the past return at once, recorded; shop stop ends a sleeping run', () => {
    const p = makeProject();
    p.write('workflows/zero.lua', 'function workflow(prompt)\n  sleep(0)\n  sleep_until(1000)\n  return "on"\nend\n');
    const r = p.shop(['run', 'zero']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    expect(p.status(runId(r)).executions.map((e) => [e.key, e.kind, e.status, e.fingerprint])).toEqual([
      ['1', 'sleep', 'completed', 'sleep()'],
      ['2', 'sleep', 'completed', 'sleep_until()'],
    ]);

    p.write('workflows/long.lua', 'function workflow(prompt)\n  sleep(3600)\nend\n');
    const long = p.shop(['run', 'long']);
    expect(long.code).toBe(7);
    const id = runId(long);
    // Following it ends at once with its state: nothing moves before its time (it followed on for the hour before).
    const followed = p.shop(['log', '-f', String(id)]);
    expect(followed.code).toBe(7);
    expect(followed.stdout).toMatch(/wait_started \[1 sleep\]/);
    const stopped = p.shop(['stop', String(id), '--reason', 'not today']);
    expect(stopped.code).toBe(0);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'not today', waiting_on: [] });
  }, 60_000);
});
