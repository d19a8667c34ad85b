import { describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import {
  killLeftovers,
  lines,
  makeProject,
  runId,
  startWorker,
  stopWorker,
  trail,
  until,
  type Project,
} from './harness.js';

/**
 * wait_event through the built binary, on SQLite and on PostgreSQL: an event sent before the
 * wait is reached is taken, two waits take two events in order, a timeout returns nil on time,
 * and a worker holding the waiting run takes an event sent by another process at once.
 */
const cluster = usePgCluster();

const STORES: [string, () => Promise<NodeJS.ProcessEnv>][] = [
  ['SQLite', async () => ({})],
  ['PostgreSQL', async () => ({ SHOP_DATABASE_URL: await cluster.fresh('events') })],
];

async function project(store: () => Promise<NodeJS.ProcessEnv>): Promise<Project> {
  const p = makeProject();
  Object.assign(p.env, await store(), { SHOP_USER: 'ci-bot' });
  if (p.env.SHOP_DATABASE_URL) expect(p.shop(['init', '--database', p.env.SHOP_DATABASE_URL]).code).toBe(0);
  return p;
}

describe.each(STORES)('wait_event on %s', (_name, store) => {
  it('events sent before the waits are reached are taken, two waits taking two events in order; replay keeps them', async () => {
    const p = await project(store);
    p.write(
      'workflows/ci.lua',
      [
        'function workflow(prompt)',
        '  pause("Pushed?")',
        '  local first = wait_event("ci.finished", {key = "pr-42"})',
        '  local second = wait_event("ci.finished")',
        '  return { first = first.data.run, second = second.data.run, key = first.key, by = second.sent_by, channel = second.channel, id = second.id }',
        'end',
      ].join('\n'),
    );
    const started = p.shop(['run', 'ci', 'x']);
    expect(started.code, started.stderr).toBe(3);
    const id = runId(started);
    for (const n of [1, 2]) {
      const sent = p.shop(['event', 'send', 'ci.finished', '--key', 'pr-42', '--data', `{"run": ${n}}`]);
      expect(lines(sent.stdout), sent.stderr).toEqual([
        `recorded event ${n}: ci.finished (pr-42)`,
        'no run waits on it now; a run started before it takes it when it waits on it',
      ]);
    }
    const approved = p.shop(['approve', `${id}.1`]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(p.status(id)).toMatchObject({
      status: 'completed',
      result: { first: 1, second: 2, key: 'pr-42', by: 'ci-bot', channel: 'cli', id: 2 },
    });
    expect(
      trail(p, id)
        .filter((e) => e.type === 'event_taken')
        .map((e) => [e.key, e.data?.event_id]),
    ).toEqual([
      ['2', 1],
      ['3', 2],
    ]);
    // The takes are recorded: a replay of the log gives the same events.
    expect(p.shop(['replay', String(id)]).code).toBe(0);
    const listed = JSON.parse(p.shop(['event', 'list', '--run', String(id), '--json']).stdout) as { id: number }[];
    expect(listed.map((e) => e.id)).toEqual([2, 1]);
  }, 60_000);

  it('a timeout returns nil on time (shop run --wait keeps the process on it)', async () => {
    const p = await project(store);
    p.write(
      'workflows/late.lua',
      [
        'function workflow(prompt)',
        '  local before = now()',
        '  local e = wait_event("never.sent", {timeout = 2})',
        '  return { none = e == nil, waited = now() - before }',
        'end',
      ].join('\n'),
    );
    const t0 = Date.now();
    const r = await p.shopAsync(['run', 'late', 'x', '--wait']);
    const took = Date.now() - t0;
    expect(r.code, r.stderr).toBe(0);
    const result = p.status(runId(r)).result as { none: boolean; waited: number };
    expect(result.none).toBe(true);
    expect(result.waited).toBeGreaterThanOrEqual(2);
    // On time: its wake timer, looked at every half second, not a sweep minutes away.
    expect(result.waited).toBeLessThan(3.5);
    expect(took).toBeLessThan(10_000);
    expect(trail(p, runId(r)).map((e) => e.type)).toContain('wait_timed_out');
  }, 60_000);

  it('a worker takes the waiting run and its event the moment another process sends it (p50 send → next step measured)', async () => {
    const p = await project(store);
    const N = 9;
    p.write(
      'workflows/ticks.lua',
      [
        'function workflow(prompt)',
        '  local seen = {}',
        `  for i = 1, ${N} do`,
        '    local e = wait_event("tick")',
        '    now()',
        '    seen[#seen + 1] = e.data',
        '  end',
        '  return seen',
        'end',
      ].join('\n'),
    );
    const started = p.shop(['run', 'ticks', 'x']);
    expect(started.code, started.stderr).toBe(7);
    const id = runId(started);
    const w = await startWorker(p);
    try {
      // A run waiting on the world is held by no one (no lease to renew while it waits): the send itself brings it to the worker.
      await until('the worker to make its first pass', () => /shop watch: watching /.test(w.output()));
      // Sent a few hundred ms apart, nothing else polling meanwhile (a status read is a process of its own on 2 cores).
      const sentAt: number[] = [];
      for (let i = 1; i <= N; i++) {
        const sent = await p.shopAsync(['event', 'send', 'tick', '--data', String(i), '--json']);
        expect(sent.code, sent.stderr).toBe(0);
        const doc = JSON.parse(sent.stdout) as { event: { sent_at: string }; woke: number[] };
        expect(doc.woke).toEqual([id]);
        sentAt.push(Date.parse(doc.event.sent_at));
        await new Promise((r) => setTimeout(r, 300));
      }
      await until('the run to complete', () => p.status(id).status === 'completed');
      const calls = p.status(id).executions;
      expect(p.status(id).result).toEqual(Array.from({ length: N }, (_, i) => i + 1));
      // From the event's commit to the start of the step after its wait_event (call 2i: the now() after it).
      const latencies = sentAt.map(
        (t, i) => Date.parse(calls.find((e) => e.key === String(2 * (i + 1)))!.started_at!) - t,
      );
      const sorted = [...latencies].sort((a, b) => a - b);
      const p50 = sorted[Math.floor(N / 2)];
      console.log(`wait_event on ${_name}: send → next step, ms: ${latencies.join(' ')} (p50 ${p50})`);
      // The target is 25 ms (README, Performance: measured there); on a shared, loaded machine a
      // test allows more — what it must rule out is waiting for a sweep (a third of a lease: 5 s)
      // or a worker's pass interval: the run is woken by the send itself.
      expect(p50).toBeLessThanOrEqual(500);
    } finally {
      expect(await stopWorker(w)).toBe(0);
      await killLeftovers();
    }
  }, 120_000);
});
