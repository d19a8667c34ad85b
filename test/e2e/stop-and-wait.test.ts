import { describe, expect, it } from 'vitest';
import { agentRunning, isAlive, lines, makeProject, runId, until, type Background, type Project } from './harness.js';

/** Waits for a background `shop run` to print its run id. */
async function startedId(bg: Background): Promise<number> {
  await until('the run id', () => /run \d+ started/.test(bg.output()));
  return runId(bg.output());
}

describe('shop stop', () => {
  it('ends a waiting run as stuck with the reason', () => {
    const p = makeProject();
    const run = p.shop(['run', 'feature', 'x']);
    expect(run.code).toBe(3);
    const id = runId(run);

    const r = p.shop(['stop', String(id), '--reason', 'abandon']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([`Run ${id} marked as stuck: abandon`]);
    expect(lines(p.shop(['status', String(id)]).stdout)).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^Run ${id}: stuck `)), 'Reason: abandon']),
    );
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'abandon', pending: null });

    // Ended is ended: the pause can no longer be answered, and a second stop is a conflict.
    expect(p.shop(['signal', String(id), '--status', 'CONTINUE']).code).toBe(6);
    expect(p.shop(['stop', String(id), '--reason', 'again']).code).toBe(6);
    expect(p.invocations().some((i) => i.agent === 'deployer')).toBe(false);
  });

  it("kills the running agent's process; the driving shop run exits 4", async () => {
    const p = makeProject();
    p.scenario({ agents: { coder: [{ status: 'DONE', sleep_ms: 30_000 }] } });
    const bg = p.spawnShop(['run', 'bugfix', 'x']);
    const id = await startedId(bg);
    const agent = await until('the coder to start', () => p.invocations().find((i) => i.agent === 'coder'));
    expect(agentRunning(agent)).toBe(true);

    const r = p.shop(['stop', String(id), '--reason', 'abandon']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Run ${id} marked as stuck: abandon`);
    expect(await bg.exited).toBe(4);
    expect(lines(bg.output()).at(-1)).toBe(`run ${id} is stuck: abandon`);
    await until('the agent to die', () => !agentRunning(agent), 5_000);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'abandon' });
    expect(p.invocations()).toHaveLength(1);
  });
});

describe('shop run --wait', () => {
  /** Starts `shop run --wait`, waits for it to wait on `call`, and checks it is alive and waiting. */
  async function waitingAt(p: Project, args: string[], call: string): Promise<{ bg: Background; id: number }> {
    const bg = p.spawnShop(['run', '--wait', ...args]);
    const id = await startedId(bg);
    await until(`call ${call} to wait`, () => bg.output().includes(`  [${call}] waiting for a person: `));
    expect(isAlive(bg.child.pid!)).toBe(true);
    expect(bg.child.exitCode).toBeNull();
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: call } });
    return { bg, id };
  }

  it('stays alive at a pause; shop signal from another process hands it the answer', async () => {
    const p = makeProject();
    const { bg, id } = await waitingAt(p, ['feature', 'x'], '6');

    const r = p.shop(['signal', String(id), '--status', 'CONTINUE']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      `run ${id} call 6 (${id}.6): answered CONTINUE by tester`,
      `  (run ${id}'s one open ask: ${id}.6 — the workflow asks (checkpoint): Approve deployment?)`,
      `run ${id} is driven by process ${bg.child.pid}; it picks up the answer itself`,
    ]);
    expect(await bg.exited).toBe(0);
    expect(bg.output()).toContain('  [6] answered by tester; resuming');
    expect(lines(bg.output()).at(-1)).toMatch(new RegExp(`^run ${id} completed: `));
    expect(p.status(id).status).toBe('completed');
    // Resumed in place, no replay: every call ran once, the deployer included.
    expect(p.invocations().map((i) => [i.call, i.agent])).toEqual([
      ['1', 'architect'],
      ['2', 'coder'],
      ['3', 'reviewer'],
      ['4', 'coder'],
      ['5', 'reviewer'],
      ['7', 'deployer'],
    ]);
  });

  it("stays alive on NEEDS_HUMAN; a new signal file answers nothing, the person's answer resumes it in place", async () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
          { status: 'DONE', summary: 'fixed' },
        ],
      },
    });
    const { bg, id } = await waitingAt(p, ['bugfix', 'x'], '1');

    // Another process writes the waiting call's own file: the live driver does not read it.
    p.writeSignal(id, '1', 'coder', { status: 'DONE', summary: 'postgres it is' });
    const a = p.shop(['signal', String(id), '--status', 'DONE', '--message', 'use postgres']);
    expect(a.code).toBe(0);
    expect(await bg.exited).toBe(0);
    expect(bg.output()).toContain('  [1] answered by tester; resuming');
    const s = p.status(id);
    expect(s.status).toBe('completed');
    expect(s.executions[0]).toMatchObject({
      status: 'completed',
      result: { status: 'DONE', summary: 'use postgres', responder: 'tester' },
    });
    expect(p.invocations().map((i) => i.call)).toEqual(['1', '2', '3', '4']);
    expect(p.invocations()[1].prompt).toContain('use postgres');
  });
});
