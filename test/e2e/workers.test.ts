import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, lines, makeProject, runId, until, type Project } from './harness.js';

/**
 * shop workers: the registry every shop watch writes itself into — two watches as two machines
 * (SHOP_HOSTNAME), their heartbeats, a clean exit removing the row, a kill -9 leaving one that
 * shows as gone; and the audit trail naming the worker that drove a call.
 */

afterEach(killLeftovers);

/** A lease of 3 s: heartbeats every second, a silent worker gone after 3 s. */
const LEASE = { SHOP_LEASE_SECONDS: '3' };

interface WorkerJson {
  id: string;
  host: string;
  pid: number;
  state: string;
  runs_held: number;
  agents: number;
  max_parallel: number | null;
  project: string;
  since: string;
  last_heartbeat: string;
}
const workersJson = (p: Project, env: NodeJS.ProcessEnv = {}): WorkerJson[] => {
  const r = p.shop(['workers', '--json'], { env: { ...LEASE, ...env } });
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return JSON.parse(r.stdout) as WorkerJson[];
};

describe('shop workers', () => {
  it('lists two watches on two hosts with what they hold; a clean exit removes its row, a kill -9 leaves one shown as gone', async () => {
    const p = makeProject();
    expect(lines(p.shop(['workers']).stdout)).toEqual([
      'no worker is registered on this store; start one with: shop watch',
    ]);
    expect(workersJson(p)).toEqual([]);
    const waiting = p.shop(['run', 'feature', 'x']);
    expect(waiting.code).toBe(3);
    const id = runId(waiting);

    const a = p.spawnShop(['watch', '--max-parallel', '2'], { env: { ...LEASE, SHOP_HOSTNAME: 'machine-a' } });
    const b = p.spawnShop(['watch'], { env: { ...LEASE, SHOP_HOSTNAME: 'machine-b' } });
    const both = await until('both workers registered, one holding the waiting run', () => {
      const rows = workersJson(p);
      return rows.length === 2 && rows.reduce((n, w) => n + w.runs_held, 0) === 1 ? rows : null;
    });
    const project = readFileSync(join(p.dir, '.shop', 'project-id'), 'utf8').trim();
    expect(both.map((w) => [w.host, w.pid, w.state, w.max_parallel, w.project]).sort()).toEqual([
      ['machine-a', a.child.pid, 'live', 2, project],
      ['machine-b', b.child.pid, 'live', null, project],
    ]);
    for (const w of both) expect(Date.parse(w.last_heartbeat)).toBeGreaterThanOrEqual(Date.parse(w.since));
    const table = lines(p.shop(['workers'], { env: LEASE }).stdout);
    expect(table[0]).toMatch(/^HOST\s+PID\s+STATE\s+RUNS\s+AGENTS\s+SINCE\s+LAST HEARTBEAT$/);
    expect(
      table
        .slice(1)
        .map((l) => l.split(/\s+/).slice(0, 3))
        .sort(),
    ).toEqual([
      ['machine-a', String(a.child.pid), 'live'],
      ['machine-b', String(b.child.pid), 'live'],
    ]);

    // The holder drives the run on when it is answered; the trail names it (host, pid).
    const holder = both.find((w) => w.runs_held === 1)!;
    expect(p.shop(['approve', `${id}.6`]).code).toBe(0);
    await until('the run to complete', () => p.status(id).status === 'completed');
    const started = (
      JSON.parse(p.shop(['log', String(id), '--json']).stdout) as {
        events: { type: string; key: string | null; data: unknown }[];
      }
    ).events
      .filter((e) => e.type === 'execution_started')
      .map((e) => [e.key, e.data]);
    expect(started.find(([key]) => key === '7')).toEqual(['7', { host: holder.host, pid: holder.pid }]);
    expect(started.find(([key]) => key === '1')![1]).toMatchObject({ host: expect.not.stringMatching(/^machine-/) });

    a.child.kill('SIGTERM');
    expect(await a.exited).toBe(0);
    expect(workersJson(p).map((w) => w.host)).toEqual(['machine-b']);
    b.child.kill('SIGKILL');
    await b.exited;
    // On its own host a dead pid tells at once; elsewhere, a lease of silence.
    expect(workersJson(p, { SHOP_HOSTNAME: 'machine-b' }).map((w) => [w.host, w.state])).toEqual([
      ['machine-b', 'gone'],
    ]);
    await until('machine-b to show as gone from another host', () => workersJson(p)[0].state === 'gone', 10_000);
    expect(lines(p.shop(['workers'], { env: LEASE }).stdout).at(-1)).toMatch(
      /^1 gone: stopped heartbeating without ending/,
    );
  });

  it('a gone worker is shown holding nothing: its runs go to live workers, its agents ended with it', async () => {
    const p = makeProject();
    expect(p.shop(['run', 'feature', 'x']).code).toBe(3);
    const w = p.spawnShop(['watch'], { env: { ...LEASE, SHOP_HOSTNAME: 'machine-c' } });
    await until('the worker to hold the waiting run', () => workersJson(p)[0]?.runs_held === 1);
    w.child.kill('SIGKILL');
    await w.exited;
    // On its own host its dead pid tells at once that it is gone.
    const here = { SHOP_HOSTNAME: 'machine-c' };
    expect(workersJson(p, here)).toEqual([
      expect.objectContaining({ host: 'machine-c', state: 'gone', runs_held: 0, agents: 0 }),
    ]);
    const table = lines(p.shop(['workers'], { env: { ...LEASE, ...here } }).stdout);
    expect(table[1].split(/\s{2,}/).slice(0, 5)).toEqual(['machine-c', String(w.child.pid), 'gone', '-', '-']);
  });

  it('a bad SHOP_HOSTNAME is refused with one line (exit 2)', () => {
    const p = makeProject();
    const r = p.shop(['workers'], { env: { SHOP_HOSTNAME: 'bad host\u001b[31m' } });
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(/^shop: SHOP_HOSTNAME "bad host\\u001b\[31m" is not a host name: use letters, digits/),
    ]);
  });

  it('a store that belongs to another project is refused with one line (exit 6), nothing read from it', () => {
    const mine = makeProject();
    expect(mine.shop(['run', 'feature', 'x']).code).toBe(3);
    const other = makeProject();
    const r = other.shop(['list'], { env: { SHOP_HOME: join(mine.dir, '.shop') } });
    expect(r.stdout).toBe('');
    expect(r.code).toBe(6);
    const ids = [mine, other].map((p) => readFileSync(join(p.dir, '.shop', 'project-id'), 'utf8').trim());
    expect(ids[0]).not.toBe(ids[1]);
    expect(lines(r.stderr)).toEqual([
      `shop: this store belongs to another project (${ids[0]}), not ${other.dir} (${ids[1]}); give this project its own store (SHOP_DATABASE_URL or shop init --database), or, for the same project without git, copy .shop/project-id from a machine already using it`,
    ]);
  });
});
