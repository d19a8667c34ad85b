import { afterEach, describe, expect, it } from 'vitest';
import {
  agentRunning,
  killLeftovers,
  lines,
  makeProject,
  runId,
  startWorker,
  stopWorker,
  until,
  type Background,
  type Project,
} from './harness.js';

/** shop watch: one process that drives on interrupted runs, holds waiting ones, and lets them go on SIGTERM. */

afterEach(killLeftovers);

const held = (id: number, spec: string) => `run ${id} (${spec}): held here while it waits for a person`;
const stopping = (driving: number, holding: number) =>
  `shop watch: stopping: ${driving} run(s) driven here left resumable, ${holding} waiting run(s) let go`;
const watching = (p: Project, w: Background) =>
  `shop watch: watching ${p.dir} (pid ${w.child.pid}); Ctrl-C or SIGTERM to stop`;

/** A run's agent calls, each [call, resumed]. */
const calls = (p: Project, id: number) =>
  p
    .invocations()
    .filter((i) => i.run === String(id))
    .map((i) => [i.call, i.resumed]);

describe('shop watch', () => {
  it('holds a waiting run; shop approve from another process records the answer and the worker completes the run', async () => {
    const p = makeProject();
    const run = p.shop(['run', 'feature', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);

    const w = await startWorker(p);
    await until('the run to be held', () => w.output().includes(held(id, 'feature')));
    const answeredAt = Date.now();
    const r = p.shop(['approve', `${id}.6`]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      `run ${id} call 6 (${id}.6): answered approved by tester`,
      `run ${id} is driven by process ${w.child.pid}; it picks up the answer itself`,
    ]);
    await until('the worker to resume the run', () =>
      w.output().includes(`run ${id} (feature): resuming (an answer came in)`),
    );
    expect(Date.now() - answeredAt).toBeLessThan(3_000);
    await until('the run to complete', () => w.output().includes(`run ${id} (feature) completed: `));
    expect(p.status(id)).toMatchObject({ status: 'completed', result: { shipped: true, rounds: 2 } });

    expect(await stopWorker(w)).toBe(0);
    const deployer = p.invocations().find((i) => i.agent === 'deployer')!;
    expect(lines(w.output())).toEqual([
      watching(p, w),
      held(id, 'feature'),
      `run ${id} (feature): resuming (an answer came in)`,
      `run ${id} [6] answered by tester; resuming`,
      `run ${id} [7] deployer started (session ${deployer.session_id})`,
      `run ${id} [7] deployer → DONE: deployer finished: Deploy: x`,
      `run ${id} (feature) completed: {"shipped":true,"rounds":2,"deploy":"deployer finished: Deploy: x"}`,
      stopping(0, 0),
    ]);
    // Resumed in place: every agent call ran once.
    expect(calls(p, id)).toEqual([
      ['1', false],
      ['2', false],
      ['3', false],
      ['4', false],
      ['5', false],
      ['7', false],
    ]);
  });

  it('SIGTERM mid-agent stops the agent and leaves the run resumable; a new worker finishes it without re-running a completed call', async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'DONE', summary: 'repro' },
          { status: 'DONE', sleep_ms: 60_000 },
          { status: 'DONE', sleep_ms: 60_000 },
          { status: 'DONE', summary: 'fixed' },
        ],
        reviewer: [{ status: 'APPROVED', summary: 'ok' }],
      },
    });
    // The driving shop run dies (kill -9) while the second coder call works.
    const fg = p.spawnShop(['run', 'bugfix', 'x']);
    await until('the second coder call', () => p.invocations().some((i) => i.call === '2'));
    const id = runId(fg.output());
    fg.child.kill('SIGKILL');
    expect(await fg.exited).toBeNull();
    expect(p.status(id).status).toBe('interrupted');

    const a = await startWorker(p);
    await until('worker A to take the run over', () =>
      a.output().includes(`run ${id} (bugfix): taken over (its driver was gone); driving it on`),
    );
    const agent = await until('call 2 re-invoked by worker A', () => p.invocations().filter((i) => i.call === '2')[1]);
    expect(agent).toMatchObject({ resumed: true });
    // The orphan of the dead shop run was stopped before the call was taken over.
    expect(agentRunning(p.invocations()[1])).toBe(false);
    expect(agentRunning(agent)).toBe(true);

    expect(await stopWorker(a)).toBe(0);
    expect(lines(a.output())).toEqual([
      watching(p, a),
      `run ${id} (bugfix): taken over (its driver was gone); driving it on`,
      `run ${id} [2] coder resumed (session ${agent.session_id})`,
      stopping(1, 0),
      `run ${id} (bugfix): its agents were stopped; it stays resumable`,
    ]);
    await until('the agent to be gone', () => !agentRunning(agent), 5_000);
    expect(p.status(id)).toMatchObject({ status: 'interrupted', reason: null });

    const b = await startWorker(p);
    await until('worker B to finish the run', () => b.output().includes(`run ${id} (bugfix) completed: `));
    expect(b.output()).toContain(`run ${id} (bugfix): taken over (its driver was gone); driving it on`);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: { fixed: true, summary: 'fixed' } });
    expect(await stopWorker(b)).toBe(0);
    // Only the interrupted call was invoked again, on its own session; call 1 ran once.
    expect(calls(p, id)).toEqual([
      ['1', false],
      ['2', false],
      ['2', true],
      ['2', true],
      ['3', false],
    ]);
    expect(
      new Set(
        p
          .invocations()
          .filter((i) => i.call === '2')
          .map((i) => i.session_id),
      ).size,
    ).toBe(1);
  });

  it("a new signal file for a call the worker holds answers nothing; the person's answer does", async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?', awaiting: 'approval' },
          { status: 'DONE', summary: 'fixed' },
        ],
        reviewer: [{ status: 'APPROVED', summary: 'ok' }],
      },
    });
    const run = p.shop(['run', 'bugfix', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);
    const w = await startWorker(p);
    await until('the run to be held', () => w.output().includes(held(id, 'bugfix')));

    // Another process writes the waiting call's own file (found by listing .shop/signals).
    p.writeSignal(id, '1', 'coder', {
      status: 'DONE',
      summary: 'postgres it is',
      verdict: 'approved',
      responder: 'alice (human)',
    });
    const a = p.shop(['approve', String(id), '--message', 'go ahead']);
    expect(a.stderr).toBe('');
    expect(a.code).toBe(0);
    await until('the run to complete', () => w.output().includes(`run ${id} (bugfix) completed: `));
    expect(w.output()).toContain(
      `run ${id} (bugfix): resuming (an answer came in)\nrun ${id} [1] answered by tester; resuming\n`,
    );
    const s = p.status(id);
    expect(s.executions[0]).toMatchObject({
      key: '1',
      status: 'completed',
      result: { status: 'APPROVED', summary: 'go ahead', responder: 'tester', verdict: 'approved' },
    });
    expect(calls(p, id)).toEqual([
      ['1', false],
      ['2', false],
      ['3', false],
    ]);
    expect(await stopWorker(w)).toBe(0);
  });

  it('two workers on one project never drive one run twice', async () => {
    const p = makeProject();
    p.write(
      'workflows/gate.lua',
      'function workflow(prompt)\n  run("coder", "build " .. prompt)\n  pause("Ship " .. prompt .. "?")\n  return run("deployer", "ship " .. prompt).status\nend\n',
    );
    const ws = [await startWorker(p), await startWorker(p)];
    const ids: number[] = [];
    for (const n of [1, 2, 3, 4]) {
      const r = p.shop(['run', 'gate', `r${n}`]);
      expect(r.code).toBe(3);
      ids.push(runId(r));
    }
    const holder = new Map<number, Background>();
    for (const id of ids) {
      await until(`run ${id} to be held`, () => ws.some((w) => w.output().includes(held(id, 'gate'))));
      const by = ws.filter((w) => w.output().includes(held(id, 'gate')));
      expect(by).toHaveLength(1);
      holder.set(id, by[0]);
    }
    // Answered all at once: each answer is left to the worker holding the run.
    for (const id of ids) {
      const r = p.shop(['approve', String(id)]);
      expect(r.code).toBe(0);
      // By bare run id off a terminal: the answer line, which ask it was, then who drives the run.
      expect(lines(r.stdout)[2]).toBe(
        `run ${id} is driven by process ${holder.get(id)!.child.pid}; it picks up the answer itself`,
      );
    }
    for (const id of ids) await until(`run ${id} to complete`, () => p.status(id).status === 'completed');
    for (const w of ws) expect(await stopWorker(w)).toBe(0);

    for (const id of ids) {
      expect(p.status(id).result).toBe('DONE');
      expect(calls(p, id)).toEqual([
        ['1', false],
        ['3', false],
      ]);
      for (const w of ws) {
        const mine = w === holder.get(id);
        const count = (text: string) => lines(w.output()).filter((l) => l === text).length;
        expect(count(held(id, 'gate'))).toBe(mine ? 1 : 0);
        expect(count(`run ${id} (gate): resuming (an answer came in)`)).toBe(mine ? 1 : 0);
        expect(count(`run ${id} (gate) completed: "DONE"`)).toBe(mine ? 1 : 0);
      }
    }
  });

  it('--json: every line is a JSON object with a type', async () => {
    const p = makeProject();
    const id = runId(p.shop(['run', 'feature', 'x']));
    const w = await startWorker(p, ['--json']);
    await until('the run to be held', () => w.output().includes('"type":"took"'));
    expect(p.shop(['approve', String(id)]).code).toBe(0);
    await until('the run to complete', () => w.output().includes('"type":"outcome"'));
    expect(await stopWorker(w)).toBe(0);

    const out = lines(w.output()).map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const o of out) expect(o).toMatchObject({ type: expect.any(String), at: expect.any(String) });
    expect(out.filter((o) => o.type !== 'progress')).toEqual([
      expect.objectContaining({ type: 'watching', pid: w.child.pid, runs: null, max_parallel: null }),
      expect.objectContaining({ type: 'took', run: id, spec: 'feature', how: 'waiting' }),
      expect.objectContaining({ type: 'resuming', run: id, spec: 'feature', why: 'answer' }),
      expect.objectContaining({ type: 'outcome', run: id, outcome: expect.objectContaining({ status: 'completed' }) }),
      expect.objectContaining({ type: 'stopping', driving: 0, holding: 0 }),
    ]);
    expect(out.some((o) => o.type === 'progress' && o.run === id)).toBe(true);
  });
});
