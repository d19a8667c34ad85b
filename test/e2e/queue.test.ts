import { afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { killLeftovers, projectOn, startWorker, stopWorker, trail, until, type Project } from './harness.js';

/**
 * The queue through the built binary, on SQLite and on PostgreSQL: shop run --detach records
 * a queued run and returns; three workers take the queued runs, never one twice, highest
 * priority first; a workflow's config{ concurrency = 1 } never has two runs of one key driven
 * at once (the workflow itself checks: mkdir of the key's lock fails when another holds it).
 */

afterEach(killLeftovers);
const cluster = usePgCluster();

/** Takes the key's lock (mkdir is atomic), works a little, lets go: a second run of the key at once fails at its mkdir. */
const DEPLOY = (locks: string, seconds = '0.1') => `config{ concurrency = 1 }
function workflow(prompt)
  local lock = "${locks}/" .. prompt
  local got = sh({"mkdir", lock})
  if got.code ~= 0 then error("two runs of " .. prompt .. " at once") end
  sh({"sleep", "${seconds}"})
  sh({"rmdir", lock})
  return prompt .. " by " .. context().trigger.kind .. " " .. tostring(context().trigger.by)
end
`;

const detach = (p: Project, args: string[]) => {
  const r = p.shop(['run', ...args, '--detach']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return queuedId(r.stdout);
};

const queuedId = (out: string) => Number(/^run (\d+) queued/.exec(out)![1]);

const takenOrder = (p: Project, ids: number[]) =>
  ids
    .map((id) => ({ id, at: trail(p, id).find((e) => e.type === 'run_taken')!.at }))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at) || a.id - b.id)
    .map((x) => x.id);

/** Six runs of each of three keys: enough for every worker to take some and each key to queue behind itself. */
const RUNS = 18;

describe.each(['sqlite', 'postgres'] as const)('the queue on %s', (store) => {
  it('--detach returns at once with a queued run; three workers take 18 runs, each once, never two of one key at once', async () => {
    const p = await projectOn(store, cluster, 'queue');
    // Each run holds its key 0.3 s: a key's six runs outlast the workers' start-ups, so each worker finds work.
    p.write('workflows/deploy.lua', DEPLOY(p.dir, '0.3'));
    const first = p.shop(['run', 'deploy', 'prod', '--detach', '--key', 'prod']);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^run \d+ queued \(deploy, key prod, at most 1 at once\)\n {2}no worker is watching/);
    const ids = [queuedId(first.stdout)];
    for (let i = 1; i < RUNS; i++) {
      const key = ['prod', 'staging', 'dev'][i % 3]!;
      ids.push(detach(p, ['deploy', key, '--key', key]));
    }
    expect(p.list().filter((r) => r.status === 'queued')).toHaveLength(RUNS);
    // Started together: started one after another, the first drained the queue alone before the third was up.
    const workers = await Promise.all([startWorker(p), startWorker(p), startWorker(p)]);
    await until('every run to end', () => p.list().every((r) => r.status === 'completed' || r.status === 'failed'), {
      timeoutMs: 90_000,
      everyMs: 500,
    });
    const runs = p.list();
    expect(runs.filter((r) => r.status !== 'completed').map((r) => [r.id, r.reason])).toEqual([]);
    expect(runs.map((r) => r.result).sort()).toEqual(
      ids.map((_, i) => `${['prod', 'staging', 'dev'][i % 3]} by cli ${runs[0]!.trigger!.by}`).sort(),
    );
    // Each run taken once, by one worker, and its calls started by that worker alone.
    for (const id of ids) {
      const events = trail(p, id);
      expect(events.filter((e) => e.type === 'run_taken')).toHaveLength(1);
      const pid = events.find((e) => e.type === 'run_taken')!.data!.pid;
      expect(new Set(events.filter((e) => e.type === 'execution_started').map((e) => e.data!.pid))).toEqual(
        new Set([pid]),
      );
    }
    // The work was shared.
    const outputs = workers.map((w) => w.output());
    expect(outputs.filter((o) => /taken from the queue/.test(o)).length).toBeGreaterThan(1);
    for (const w of workers) expect(await stopWorker(w)).toBe(0);
  }, 150_000);

  it('a worker takes the highest priority first (shop priority moves one), then the oldest; a stopped queued run is never started', async () => {
    const p = await projectOn(store, cluster, 'queue_prio');
    p.write('workflows/deploy.lua', DEPLOY(p.dir));
    const low = detach(p, ['deploy', 'prod', '--key', 'prod']);
    const dropped = detach(p, ['deploy', 'prod', '--key', 'prod', '--priority', '9']);
    const high = detach(p, ['deploy', 'prod', '--key', 'prod', '--priority', '5']);
    const low2 = detach(p, ['deploy', 'prod', '--key', 'prod']);
    const moved = p.shop(['priority', String(low2), '7']);
    expect([moved.code, moved.stdout]).toEqual([0, `run ${low2} (deploy) now has priority 7 in the queue\n`]);
    const stop = p.shop(['stop', String(dropped), '--reason', 'not this one']);
    expect(stop.code).toBe(0);
    expect(p.status(dropped).status).toBe('stuck');
    const w = await startWorker(p);
    await until('the three runs to end', () => [low, high, low2].every((id) => p.status(id).status === 'completed'), {
      timeoutMs: 30_000,
      everyMs: 300,
    });
    expect(takenOrder(p, [low, high, low2])).toEqual([low2, high, low]);
    const late = p.shop(['priority', String(low), '1']);
    expect([late.code, late.stderr]).toEqual([
      6,
      `shop: run ${low} is completed, not queued: only a queued run's priority changes\n`,
    ]);
    expect(trail(p, dropped).some((e) => e.type === 'run_taken')).toBe(false);
    expect(await stopWorker(w)).toBe(0);
  }, 60_000);
});

describe('a foreground shop run of a workflow with config{ concurrency }', () => {
  it('waits here for its turn behind the run a worker drives (no worker takes it), then runs here to its end', async () => {
    const p = await projectOn('sqlite', cluster, 'queue_fg');
    // The first holds its key 5 s: on a busy CI machine a new shop run took longer than 2 s to reach its turn.
    p.write('workflows/deploy.lua', DEPLOY(p.dir, '5'));
    const w = await startWorker(p);
    const first = detach(p, ['deploy', 'prod', '--key', 'prod']);
    await until('the worker to take the first', () => p.status(first).status !== 'queued');
    const here = await p.shopAsync(['run', 'deploy', 'prod', '--key', 'prod']);
    expect(here.stderr).toBe('');
    expect(here.code).toBe(0);
    expect(here.stdout).toMatch(
      /queued: at most 1 run of deploy at once \(config\{ concurrency \}\); it starts here in its turn/,
    );
    const second = Number(/^run (\d+) started/.exec(here.stdout)![1]);
    expect(p.status(second).status).toBe('completed');
    const firstEnd = trail(p, first).at(-1)!.at;
    const taken = trail(p, second).find((e) => e.type === 'run_taken')!;
    expect(Date.parse(taken.at)).toBeGreaterThanOrEqual(Date.parse(firstEnd));
    expect(taken.data!.pid).not.toBe(w.child.pid);
    expect(await stopWorker(w)).toBe(0);
  }, 60_000);
});

describe('shop resume and shop stop over a filter', () => {
  const FLAKY = (dir: string) => `function workflow(prompt)
  if sh({"test", "-f", "${dir}/fixed"}).code ~= 0 then error("not fixed yet") end
  return "ok " .. prompt
end
`;
  type Bulk = { dry_run: boolean; runs: { id: number; status: string; outcome: string; reason: string | null }[] };
  const bulk = (p: Project, args: string[]) => {
    const r = p.shop([...args, '--json']);
    expect([r.code, r.stderr]).toEqual([0, '']);
    return JSON.parse(r.stdout) as Bulk;
  };

  it('resume --status failed hands the failed runs back to the workers (dry run first), which finish them; the rest are skipped', async () => {
    const p = await projectOn('sqlite', cluster, 'bulk_resume');
    // Each run's agent is overloaded once (no retries): the three fail; resumed, each agent call runs again and is done.
    p.write(
      'workflows/once.lua',
      'function workflow(prompt)\n  return run("coder", { prompt = "Build " .. prompt, retries = 0 }).summary\nend\n',
    );
    p.scenario({ agents: { coder: [{ fail: 529 }, { status: 'DONE', summary: 'built' }] } });
    const ids = [1, 2, 3].map((i) => detach(p, ['once', String(i)]));
    const w = await startWorker(p);
    await until('the three to fail', () => ids.every((id) => p.status(id).status === 'failed'), 20_000);
    const dry = bulk(p, ['resume', '--status', 'failed', '--workflow', 'once', '--dry-run']);
    expect(dry).toEqual({
      dry_run: true,
      runs: ids.map((id) => expect.objectContaining({ id, outcome: 'would_requeue' })),
    });
    expect(ids.map((id) => p.status(id).status)).toEqual(['failed', 'failed', 'failed']);
    const done = bulk(p, ['resume', '--status', 'failed', '--since', '1h']);
    expect(done.runs.map((r) => [r.id, r.outcome])).toEqual(ids.map((id) => [id, 'requeued']));
    await until('the three to complete', () => ids.every((id) => p.status(id).status === 'completed'), 20_000);
    expect(ids.map((id) => p.status(id).result)).toEqual(['built', 'built', 'built']);
    expect(trail(p, ids[0]!).filter((e) => e.type === 'retried')).toHaveLength(1);
    const again = bulk(p, ['resume', '--workflow', 'once']);
    expect(again.runs.map((r) => [r.outcome, r.reason])).toEqual(ids.map(() => ['skipped', 'it ended completed']));
    expect(await stopWorker(w)).toBe(0);
  }, 60_000);

  it('stop --workflow stops every run of it not ended (queued ones dequeued), with the reason on each; --reason is required', async () => {
    const p = await projectOn('sqlite', cluster, 'bulk_stop');
    p.write('workflows/flaky.lua', FLAKY(p.dir));
    p.write('workflows/deploy.lua', DEPLOY(p.dir));
    const ids = [1, 2].map((i) => detach(p, ['flaky', String(i)]));
    const other = detach(p, ['deploy', 'x']);
    const refused = p.shop(['stop', '--workflow', 'flaky']);
    expect([refused.code, refused.stderr]).toEqual([
      2,
      expect.stringMatching(/^shop: stopping many runs needs --reason R/),
    ]);
    const r = bulk(p, ['stop', '--workflow', 'flaky', '--reason', 'cleanup']);
    expect(r.runs.map((x) => [x.id, x.status, x.outcome])).toEqual(ids.map((id) => [id, 'queued', 'stopped']));
    for (const id of ids) expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'cleanup' });
    expect(p.status(other).status).toBe('queued');
  });
});

describe('shop run --detach on bad input', () => {
  it('refuses a bad priority, key or id, and --id without --detach, with one line and exit 2; nothing queued', async () => {
    const p = await projectOn('sqlite', cluster, 'queue_bad');
    p.write('workflows/deploy.lua', DEPLOY(p.dir));
    const cases: [string[], RegExp][] = [
      [['--detach', '--priority', 'high'], /^shop: --priority "high" must be a whole number/],
      [['--detach', '--key', 'no spaces'], /^shop: a key is 1 to 100 letters/],
      [['--detach', '--id', 'a b'], /^shop: an id is 1 to 200 printable characters/],
      [['--id', '3'], /^shop: --id is for a queued run: add --detach/],
      [['--detach', '--worktree'], /^shop: --worktree is not given to a queued run yet/],
    ];
    for (const [args, line] of cases) {
      const r = p.shop(['run', 'deploy', 'x', ...args]);
      expect([args, r.code, r.stderr.trim().split('\n').length]).toEqual([args, 2, 1]);
      expect(r.stderr).toMatch(line);
    }
    // As shop run without --detach: an unknown workflow is not found (5), and its line lists those there are.
    const unknown = p.shop(['run', 'nope', '--detach']);
    expect([unknown.code, unknown.stderr]).toEqual([
      5,
      expect.stringMatching(/^shop: unknown workflow "nope": .*\(found: bugfix, deploy/),
    ]);
    expect(p.list()).toEqual([]);
  });
});
