import { afterEach, describe, expect, it } from 'vitest';
import { usePgCluster } from '../pg-cluster-hooks.js';
import { killLeftovers, makeProject, projectOn, runId, startWorker, stopWorker, trail, until } from './harness.js';
import { tickRun, withClock } from './clock-file.js';

/**
 * Runs waiting on runs that wait on time, start_workflow + wait_run and its timeout, and the
 * bad input of the three calls: each a Lua error at the call's line.
 */

afterEach(killLeftovers);
const cluster = usePgCluster();

const NAPPER = 'function workflow(prompt)\n  sleep(60)\n  return "rested " .. prompt\nend\n';

const project = (store: 'sqlite' | 'postgres') => projectOn(store, cluster, 'child_waits');

describe.each(['sqlite', 'postgres'] as const)('a run waiting on a run on %s', (store) => {
  it('`shop run parent` exits 7 while its child waits on a sleep; a worker wakes the child at its time, then the parent', async () => {
    const p = await project(store);
    const advance = withClock(p);
    p.write('workflows/napper.lua', NAPPER);
    p.write('workflows/parent.lua', 'function workflow()\n  return call_workflow("napper", "well").result\nend\n');
    const r = p.shop(['run', 'parent']);
    expect([r.code, r.stderr]).toEqual([7, '']);
    const id = runId(r);
    expect(r.stdout).toContain(`run ${id} waits on run ${id + 1} (napper); no person is needed`);
    expect(p.status(id)).toMatchObject({ status: 'waiting', waiting_on: [{ kind: 'run', run_id: id + 1 }] });
    expect(p.status(id + 1)).toMatchObject({ status: 'waiting', parent: id, waiting_on: [{ kind: 'timer' }] });
    expect(JSON.parse(p.shop(['inbox', '--json']).stdout)).toEqual([]);

    // Neither needs an owner while it sleeps: nothing happens before the child's time (the worker has woken a run due by then).
    const tick = tickRun(p, 10);
    advance(30);
    const w = await startWorker(p);
    await until('the worker to wake the run due by now', () => p.status(tick).status === 'completed');
    expect([p.status(id).status, p.status(id + 1).status]).toEqual(['waiting', 'waiting']);
    advance(61);
    await until('the parent to complete', () => p.status(id).status === 'completed', 20_000);
    expect(p.status(id).result).toBe('rested well');
    expect(p.status(id + 1).status).toBe('completed');
    expect(trail(p, id).filter((e) => e.type === 'child_ended')).toEqual([
      expect.objectContaining({ key: '1', data: { run_id: id + 1, status: 'completed' } }),
    ]);
    expect(await stopWorker(w)).toBe(0);
  });
});

describe('start_workflow and wait_run', () => {
  it('wait_run with a timeout gives nil once the timeout passes (the child runs on); a later wait_run gets its table', async () => {
    const p = makeProject();
    const advance = withClock(p);
    p.write('workflows/napper.lua', NAPPER);
    p.write(
      'workflows/starter.lua',
      `function workflow()
  local h = start_workflow("napper", {prompt = "late"})
  local first = wait_run(h.run_id, {timeout = 5})
  log("first: " .. tostring(first))
  local second = wait_run(h.run_id)
  return {id = h.run_id, status = second.status, result = second.result}
end
`,
    );
    const r = p.shop(['run', 'starter']);
    expect([r.code, r.stderr]).toEqual([7, '']);
    const id = runId(r);
    const child = id + 1;
    expect(p.status(id)).toMatchObject({
      status: 'waiting',
      waiting_on: [{ kind: 'run', run_id: child, until: expect.any(String) }],
    });
    advance(6);
    const again = p.shop(['resume', String(id)]);
    expect([again.code, again.stderr]).toEqual([7, '']);
    expect(p.shop(['log', String(id)]).stdout).toContain('first: nil');
    expect(trail(p, id).map((e) => e.type)).toContain('wait_timed_out');
    expect(p.status(child).status).toBe('waiting');
    advance(61);
    const done = p.shop(['resume', String(id)]);
    expect([done.code, done.stderr]).toEqual([0, '']);
    expect(p.status(id).result).toEqual({ id: child, status: 'completed', result: 'rested late' });
  });

  it("bad input is a Lua error at the call's line: a run not its child, an unknown workflow, a bad name, a prompt over the bound, a bad timeout", async () => {
    const p = makeProject();
    p.write('workflows/plain.lua', 'function workflow()\n  return 1\nend\n');
    const first = runId(p.shop(['run', 'plain']));
    const cases: [string, RegExp][] = [
      [
        `wait_run(${first})`,
        new RegExp(
          `x\\.lua:2: wait_run\\(${first}\\): run ${first} is a run a person started, not a child of run \\d+; a run may wait only on its own children`,
        ),
      ],
      ['call_workflow("nope")', /x\.lua:2: call_workflow\("nope"\): no workflow workflows\/nope\.lua/],
      [
        'start_workflow("../plain")',
        /x\.lua:2: start_workflow\(name, prompt \| \{prompt = …\}\): "\.\.\/plain" is not a workflow's name/,
      ],
      [
        'call_workflow("a/b")',
        /x\.lua:2: call_workflow\(name, prompt \| \{prompt = …\}\): "a\/b" is not a workflow's name/,
      ],
      [
        'call_workflow("plain", string.rep("x", 1024 * 1024 + 1))',
        /x\.lua:2: call_workflow\(name, prompt \| \{prompt = …\}\): the prompt is 1048577 characters, over the bound of 1048576/,
      ],
      [
        'wait_run(1, {timeout = -1})',
        /x\.lua:2: wait_run\(run_id \[, \{timeout = seconds\}\]\): timeout must be above 0/,
      ],
      [
        'wait_run(1, {timeout = "soon"})',
        /x\.lua:2: wait_run\(run_id \[, \{timeout = seconds\}\]\): timeout must be a number/,
      ],
    ];
    for (const [call, message] of cases) {
      p.write('workflows/x.lua', `function workflow()\n  return ${call}\nend\n`);
      const r = p.shop(['run', 'x']);
      expect([r.code, r.stderr], call).toEqual([1, expect.stringMatching(message)]);
    }
  });

  it('a workflow calling itself for ever stops 8 runs deep, clearly, at its line', async () => {
    const p = makeProject();
    p.write(
      'workflows/again.lua',
      'function workflow(prompt)\n  local r = call_workflow("again", prompt .. "+")\n  return r.status .. " " .. tostring(r.reason)\nend\n',
    );
    const r = p.shop(['run', 'again', 'x']);
    const id = runId(r);
    expect(r.code).toBe(0);
    // Runs id … id+8: the top one and eight levels of children; the deepest one's call fails, and each parent hears of it.
    expect(p.list()).toHaveLength(9);
    const deepest = p.status(id + 8);
    expect(deepest).toMatchObject({ status: 'failed', parent: id + 7 });
    expect(deepest.reason).toMatch(
      new RegExp(
        `again\\.lua:2: call_workflow\\("again"\\): runs may call runs at most 8 deep; run ${id + 8} is 8 down \\(${id} > ${id + 1} > .* > ${id + 8}\\)`,
      ),
    );
    expect(p.status(id + 7).result).toMatch(
      /^failed again\.lua:2: call_workflow\("again"\): runs may call runs at most 8 deep/,
    );
  });
});
