import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { killLeftovers, lines, makeProject, runId, until, type Project } from './harness.js';
import { tempDir } from '../../packages/core/src/testing/temp-dir.js';

/**
 * Workers on PostgreSQL, each "machine" its own SHOP_HOME (its own signals folder) and
 * SHOP_HOSTNAME: an answer given on one machine wakes the worker holding the run on another
 * through LISTEN/NOTIFY alone — no signal file reaches it, and its sweep is minutes away.
 */

const cluster = usePgCluster();
afterEach(killLeftovers);

/** A machine: its own .shop (signals, logs) and host name, on the shared database. */
const machine = (url: string, host: string, over: NodeJS.ProcessEnv = {}) => ({
  SHOP_DATABASE_URL: url,
  SHOP_HOME: tempDir(`shop-${host}-`),
  SHOP_HOSTNAME: host,
  ...over,
});

const workers = (p: Project, env: NodeJS.ProcessEnv) => {
  const r = p.shop(['workers', '--json'], { env });
  expect(r.stderr).toBe('');
  return JSON.parse(r.stdout) as { host: string; pid: number; state: string; runs_held: number }[];
};

describe('shop watch on PostgreSQL', () => {
  it('an answer from another machine wakes the worker holding the run by NOTIFY, with no signal file and no sweep due', async () => {
    const p = makeProject();
    const url = await cluster.fresh('workers');
    // A lease of 10 minutes: the worker's sweep (a third of it) cannot be what wakes it in this test.
    const a = machine(url, 'machine-a');
    const b = machine(url, 'machine-b', { SHOP_LEASE_SECONDS: '600' });
    const c = machine(url, 'machine-c');

    const started = p.shop(['run', 'feature', 'x'], { env: a });
    expect(started.stderr).toBe('');
    expect(started.code).toBe(3);
    const id = runId(started);

    const w = p.spawnShop(['watch'], { env: b });
    await until('machine-b to hold the waiting run', () =>
      w.output().includes(`run ${id} (feature): held here while it waits for a person`),
    );
    await until('machine-b registered, holding it', () =>
      workers(p, c).find((x) => x.host === 'machine-b' && x.runs_held === 1),
    );
    expect(workers(p, c).map((x) => [x.host, x.pid, x.state])).toEqual([['machine-b', w.child.pid, 'live']]);

    const approved = p.shop(['approve', `${id}.6`], { env: c });
    expect(approved.code).toBe(0);
    expect(lines(approved.stdout)[1]).toBe(
      `run ${id} is driven by process ${w.child.pid} on machine-b; it picks up the answer itself`,
    );
    await until('the worker to resume the run', () =>
      w.output().includes(`run ${id} (feature): resuming (an answer came in)`),
    );
    await until('the run to complete', () => w.output().includes(`run ${id} (feature) completed: `));
    // The answer's wake file went to machine-c's signals folder; machine-b's never had one.
    expect(readdirSync(join(b.SHOP_HOME, 'signals')).filter((f) => f.endsWith('.answered'))).toEqual([]);

    const log = JSON.parse(p.shop(['log', String(id), '--json'], { env: c }).stdout) as {
      events: { type: string; key: string | null; data: unknown }[];
    };
    expect(log.events.find((e) => e.type === 'execution_started' && e.key === '7')?.data).toEqual({
      host: 'machine-b',
      pid: w.child.pid,
    });

    w.child.kill('SIGTERM');
    expect(await w.exited).toBe(0);
    expect(workers(p, c)).toEqual([]);
  }, 60_000);

  it('two workers on two machines share the runs; after a kill -9 the other takes its runs over and drives them to the end', async () => {
    const p = makeProject();
    const url = await cluster.fresh('workers');
    const lease = { SHOP_LEASE_SECONDS: '6' };
    const a = machine(url, 'machine-a', lease);
    const b = machine(url, 'machine-b', lease);
    const c = machine(url, 'machine-c', lease);
    const ids = [1, 2, 3].map(() => {
      const r = p.shop(['run', 'feature', 'x'], { env: c });
      expect(r.code, JSON.stringify(r)).toBe(3);
      return runId(r);
    });
    const wa = p.spawnShop(['watch'], { env: a });
    const wb = p.spawnShop(['watch'], { env: b });
    const held = (w: { output(): string }) =>
      ids.filter((id) => w.output().includes(`run ${id} (feature): held here while it waits for a person`));
    await until('every run held by one worker or the other', () => held(wa).length + held(wb).length === ids.length);
    // Each run is held by exactly one of them.
    expect(held(wa).filter((id) => held(wb).includes(id))).toEqual([]);
    const rows = await until('both registered with their runs', () => {
      const r = workers(p, c);
      return r.length === 2 && r.reduce((sum, w) => sum + w.runs_held, 0) === ids.length ? r : null;
    });
    expect(rows.map((w) => [w.host, w.state]).sort()).toEqual([
      ['machine-a', 'live'],
      ['machine-b', 'live'],
    ]);

    // The one holding more dies; the other takes its runs once their lease runs out.
    const [dead, alive, aliveHost] = held(wa).length >= held(wb).length ? [wa, wb, 'machine-b'] : [wb, wa, 'machine-a'];
    const orphaned = held(dead);
    dead.child.kill('SIGKILL');
    await dead.exited;
    await until('the survivor to take over every run', () => held(alive).length === ids.length, 30_000);
    await until(
      'the dead worker shown as gone',
      () => workers(p, c).find((w) => w.host !== aliveHost)?.state === 'gone',
      30_000,
    );
    expect(orphaned.length).toBeGreaterThan(0);

    for (const id of ids) expect(p.shop(['approve', `${id}.6`], { env: c }).code).toBe(0);
    for (const id of ids)
      await until(`run ${id} to complete`, () => alive.output().includes(`run ${id} (feature) completed: `), 30_000);
    for (const id of orphaned) {
      const log = JSON.parse(p.shop(['log', String(id), '--json'], { env: c }).stdout) as {
        events: { type: string; key: string | null; data: unknown }[];
      };
      expect(log.events.find((e) => e.type === 'execution_started' && e.key === '7')?.data).toEqual({
        host: aliveHost,
        pid: alive.child.pid,
      });
    }
    alive.child.kill('SIGTERM');
    expect(await alive.exited).toBe(0);
    expect(workers(p, c).map((w) => w.state)).toEqual(['gone']);
  }, 120_000);

  it('a database that belongs to another project is refused with one line (exit 6); a second checkout of the same project is not', async () => {
    const url = await cluster.fresh('workers');
    const mine = makeProject();
    const env = { SHOP_DATABASE_URL: url };
    expect(mine.shop(['run', 'feature', 'x'], { env }).code).toBe(3);
    const other = makeProject();
    const refused = other.shop(['list'], { env });
    expect(refused.stdout).toBe('');
    expect(refused.code).toBe(6);
    expect(lines(refused.stderr)).toEqual([
      expect.stringMatching(
        /^shop: this store belongs to another project \(id:[0-9a-f-]+\), not .* \(id:[0-9a-f-]+\); give this project its own store/,
      ),
    ]);
    // The same project on another machine: its identity copied along (with git, its first commit is).
    const clone = makeProject();
    writeFileSync(join(clone.dir, '.shop', 'project-id'), readFileSync(join(mine.dir, '.shop', 'project-id')));
    const listed = clone.shop(['list', '--json'], { env });
    expect(listed.stderr).toBe('');
    expect((JSON.parse(listed.stdout) as { id: number }[]).map((r) => r.id)).toEqual([1]);
  });
});
