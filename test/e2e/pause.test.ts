import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, until, type Project } from './harness.js';

/** A time as the CLI shows it: local, with its offset. */
const LOCAL = '\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d';

/** feature.lua on the default stand-in: two review rounds, then pause("Approve deployment?") at call 6. */
function atThePause(p: Project): number {
  const r = p.shop(['run', 'feature', 'add a login page']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  const id = runId(r);
  expect(lines(r.stdout)).toEqual(
    expect.arrayContaining([
      `run ${id} is waiting for a person (checkpoint): the workflow asks: Approve deployment?`,
      `  decide here:  shop continue ${id}.6`,
      `  approve:      shop approve ${id}.6`,
      `  stop it:      shop reject ${id}.6 "why"`,
    ]),
  );
  const s = p.status(id);
  expect(s.status).toBe('waiting_human');
  expect(s.pending).toMatchObject({ key: '6', kind: 'pause', awaiting: 'checkpoint', question: 'Approve deployment?' });
  return id;
}

const deployerRuns = (p: Project) => p.invocations().filter((i) => i.agent === 'deployer');

describe('pause() waits for a decision', () => {
  it('--status CONTINUE resumes: the deployer runs and the run completes', () => {
    const p = makeProject();
    const id = atThePause(p);
    expect(deployerRuns(p)).toHaveLength(0);

    const r = p.shop(['signal', String(id), '--status', 'CONTINUE']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // A bare run id off a terminal (the reference's scripted form) says which ask it answered.
    expect(lines(r.stdout).slice(0, 2)).toEqual([
      `run ${id} call 6 (${id}.6): answered CONTINUE by tester`,
      `  (run ${id}'s one open ask: ${id}.6 — the workflow asks (checkpoint): Approve deployment?)`,
    ]);
    expect(r.stdout).toContain(`run ${id} completed`);
    const s = p.status(id);
    expect(s.status).toBe('completed');
    expect(s.result).toMatchObject({ shipped: true, rounds: 2 });
    expect(s.executions.find((e) => e.key === '6')).toMatchObject({
      kind: 'pause',
      status: 'completed',
      result: { continue: true, responder: 'tester' },
    });
    expect(deployerRuns(p)).toHaveLength(1);
    // Replay answered calls 1–5 from the log: no agent ran twice.
    expect(p.invocations().map((i) => i.call)).toEqual(['1', '2', '3', '4', '5', '7']);
  });

  it('--status STOP ends the run stuck with the message; a second answer is a conflict', () => {
    const p = makeProject();
    const id = atThePause(p);

    const r = p.shop(['signal', `${id}.6`, '--status', 'STOP', '--message', 'not today']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(4);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} is stuck: not today`);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'not today', pending: null });
    expect(deployerRuns(p)).toHaveLength(0);

    const again = p.shop(['signal', String(id), '--status', 'CONTINUE']);
    expect(again.code).toBe(6);
    expect(again.stdout).toBe('');
    expect(lines(again.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: ${id}\\.6 \\(run ${id} call 6\\) was already answered STOP by tester \\(signal\\) at ${LOCAL}; it is stuck: not today$`,
        ),
      ),
    ]);
    const byHandle = p.shop(['signal', `${id}.6`, '--status', 'CONTINUE']);
    expect(byHandle.code).toBe(6);
    expect(lines(byHandle.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^shop: ${id}\\.6 \\(run ${id} call 6\\) was already answered STOP by tester \\(signal\\) at ${LOCAL}; nothing is open now \\(run ${id} is stuck: not today\\)$`,
        ),
      ),
    ]);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'not today' });
    expect(deployerRuns(p)).toHaveLength(0);
  });

  it('the first answer wins: a second one, before the run moved on, names the first (exit 6)', async () => {
    const p = makeProject();
    const bg = p.spawnShop(['run', '--wait', 'feature', 'x']);
    try {
      await until('the pause', () => bg.output().includes('[6] waiting for a person: Approve deployment?'));
      const id = runId(bg.output());
      // Freeze the owner so the recorded answer stays unconsumed while the second one arrives.
      bg.child.kill('SIGSTOP');
      const first = p.shop(['signal', `${id}.6`, '--status', 'CONTINUE', '--by', 'alice']);
      expect(first.code).toBe(0);
      expect(first.stdout).toContain(`run ${id} is driven by process ${bg.child.pid}`);
      const second = p.shop(['signal', `${id}.6`, '--status', 'STOP', '--by', 'bob']);
      expect(second.code).toBe(6);
      expect(second.stdout).toBe('');
      expect(lines(second.stderr)).toEqual([
        expect.stringMatching(
          new RegExp(
            `^shop: ${id}\\.6 \\(run ${id} call 6\\) was already answered CONTINUE by alice \\(signal\\) at ${LOCAL}; nothing is open now \\(run ${id} is resuming with that answer\\)$`,
          ),
        ),
      ]);
    } finally {
      bg.child.kill('SIGCONT');
    }
    expect(await bg.exited).toBe(0);
    expect(p.status(runId(bg.output()))).toMatchObject({ status: 'completed' });
    expect(deployerRuns(p)).toHaveLength(1);
  });

  it('--status DONE on a pause is bad input (exit 2, one line) and changes nothing', () => {
    const p = makeProject();
    const id = atThePause(p);
    const r = p.shop(['signal', `${id}.6`, '--status', 'DONE']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      'shop: call 6 is a pause(): answer it with --status CONTINUE or --status STOP, not DONE',
    ]);
    expect(p.status(id).status).toBe('waiting_human');
    // The pause is still open: a valid answer is taken.
    expect(p.shop(['signal', String(id), '--status', 'CONTINUE']).code).toBe(0);
  });

  it('shop continue reads the decision from piped stdin: "n" with a reason stops the run', () => {
    const p = makeProject();
    const id = atThePause(p);
    const r = p.shop(['continue', String(id)], { input: 'n\nnot ready\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(4);
    expect(r.stdout).toContain('answered STOP by tester');
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} is stuck: not ready`);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'not ready' });
    expect(deployerRuns(p)).toHaveLength(0);
  });

  it('shop continue: "y" and an empty note continue the run to completion', () => {
    const p = makeProject();
    const id = atThePause(p);
    const r = p.shop(['continue', String(id)], { input: 'y\n\n' });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('answered CONTINUE by tester');
    expect(r.stdout).toContain(`run ${id} completed`);
    expect(p.status(id).status).toBe('completed');
    expect(deployerRuns(p)).toHaveLength(1);
  });
});
