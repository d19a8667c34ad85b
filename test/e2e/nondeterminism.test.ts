import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId } from './harness.js';

const FEATURE = 'workflows/feature.lua';
const REASON =
  'non-determinism at call 1: the log recorded run("architect") but the workflow now calls run("planner"); ' +
  'the workflow changed since this run started — restore it, guard the change with patched(), or start a new run';

describe('replay against a changed workflow', () => {
  it('fails with a non-determinism error naming the call and both versions, touching no agent', () => {
    const p = makeProject();
    const run = p.shop(['run', 'feature', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);
    const before = p.status(id);
    const calls = p.invocations().length;
    expect(calls).toBe(5);

    const original = p.read(FEATURE);
    expect(original).toContain('run("architect"');
    p.write(FEATURE, original.replace('run("architect"', 'run("planner"'));

    const r = p.shop(['resume', String(id)]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([`shop: run ${id} failed: ${REASON}`]);

    const failed = p.status(id);
    expect(failed).toMatchObject({ status: 'failed', reason: REASON, pending: null });
    // The recorded calls keep their results; the pause that waited ended with the run (a
    // retry asks again): nothing waits on an ended run.
    const endedWithRun = (e: { key: string; status: string; result: unknown }) => [
      e.key,
      e.status === 'waiting_human' ? 'failed' : e.status,
      e.result,
    ];
    expect(failed.executions.map((e) => [e.key, e.status, e.result])).toEqual(before.executions.map(endedWithRun));
    expect(failed.executions.find((e) => e.key === '6')).toMatchObject({
      status: 'failed',
      error: `the run ended failed: ${REASON}`,
    });
    expect(p.invocations()).toHaveLength(calls);

    // Resuming the changed workflow again fails the same way, still without running anything.
    const again = p.shop(['resume', String(id)]);
    expect(again.code).toBe(1);
    expect(lines(again.stderr)).toEqual([`shop: run ${id} failed: ${REASON}`]);
    expect(p.invocations()).toHaveLength(calls);
  });

  it('after restoring the workflow, resume replays the log back to the pause and the run can finish', () => {
    const p = makeProject();
    const id = runId(p.shop(['run', 'feature', 'x']));
    const original = p.read(FEATURE);
    p.write(FEATURE, original.replace('run("architect"', 'run("planner"'));
    expect(p.shop(['resume', String(id)]).code).toBe(1);

    p.write(FEATURE, original);
    const r = p.shop(['resume', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      `run ${id} is waiting for a person (checkpoint): the workflow asks: Approve deployment?`,
    );
    // Waiting again, answerable, with the old failure gone; no agent re-ran.
    expect(p.status(id)).toMatchObject({
      status: 'waiting_human',
      reason: null,
      ended_at: null,
      pending: { key: '6', kind: 'pause' },
    });
    expect(p.invocations()).toHaveLength(5);

    const done = p.shop(['signal', String(id), '--status', 'CONTINUE']);
    expect(done.code).toBe(0);
    expect(p.status(id).status).toBe('completed');
    expect(p.invocations().map((i) => i.call)).toEqual(['1', '2', '3', '4', '5', '7']);
  });
});
