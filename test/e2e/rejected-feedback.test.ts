import { describe, expect, it } from 'vitest';
import { LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { agentRunning, lines, makeProject, runId, until, type Project, type Step } from './harness.js';

/** A rejected approval whose feedback reaches the stand-in agent's own, resumed session. */
const WORKFLOW =
  'function workflow(p) local r = run("coder", "add the users table") return r.status .. "|" .. (r.summary or "") end\n';
const ASKS = { status: 'NEEDS_HUMAN', reason: 'Approve the migration?', awaiting: 'approval' };
const REWORKED = { status: 'DONE', summary: 'reworked' };

function project(coder: Step[]): Project {
  const p = makeProject();
  p.write('workflows/migrate.lua', WORKFLOW);
  p.scenario({ agents: { coder } });
  return p;
}

function atTheAsk(p: Project): number {
  const r = p.shop(['run', 'migrate']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  const id = runId(r);
  expect(p.status(id).pending).toMatchObject({
    key: '1',
    awaiting: 'approval',
    question: 'Approve the migration?',
    ask: 1,
  });
  // The typed ask, and what each verdict would do, as `shop status` shows them.
  expect(lines(p.shop(['status', String(id)]).stdout)).toEqual(
    expect.arrayContaining([
      `run ${id} is waiting for a person (approval): coder asks: Approve the migration?`,
      `  approve:            shop approve ${id}.1 [--message "…"]   (returns APPROVED to the workflow)`,
      `  reject:             shop reject ${id}.1 "feedback"   (goes back to the agent)`,
    ]),
  );
  return id;
}

const coderCalls = (p: Project) => p.invocations().filter((i) => i.mode === 'print' && i.agent === 'coder');
const log = (p: Project, id: number) => LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout));

describe('reject sends the feedback back into the agent’s own Claude session', () => {
  it('shop reject <id> "add a down migration": invocation 2 resumes the same session with those words', () => {
    const p = project([ASKS, REWORKED]);
    const id = atTheAsk(p);
    const sessionId = p.status(id).executions[0].session_id;

    const r = p.shop(['reject', `${id}.1`, 'add a down migration']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)).toEqual([
      `run ${id} call 1 (${id}.1): answered rejected by tester`,
      '  [1] answered by tester; resuming',
      `  [1] coder resumed (session ${sessionId})`,
      '  [1] coder → DONE: reworked',
      `run ${id} completed: "DONE|reworked"`,
    ]);

    const calls = coderCalls(p);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({ resumed: false, session_id: sessionId, prompt: 'add the users table' });
    expect(calls[1]).toMatchObject({ resumed: true, session_id: sessionId, call: '1', run: String(id) });
    expect(calls[1].prompt).toContain('add a down migration');
    // Claude Code resumes a session per directory: the same one it started in.
    expect(calls[1].cwd).toBe(calls[0].cwd);

    const { events, executions } = log(p, id);
    const types = events.map((e) => e.type);
    expect(types.indexOf('human_answered')).toBeLessThan(types.indexOf('sent_back'));
    expect(events.find((e) => e.type === 'human_answered')).toMatchObject({
      actor: 'tester',
      channel: 'cli',
      data: { ask: 1, verdict: 'rejected', message: 'add a down migration' },
    });
    expect(executions[0]).toMatchObject({
      status: 'completed',
      session_id: sessionId,
      attempts: 2,
      result: { status: 'DONE', summary: 'reworked' },
    });
  });

  it('the agent asks again after the feedback: a new ask (2) waits, and a second answer closes it', () => {
    const p = project([ASKS, { ...ASKS, reason: 'Down migration added. Approve now?' }, REWORKED]);
    const id = atTheAsk(p);
    const firstAsk = p.status(id).pending!;

    const r = p.shop(['reject', String(id), 'add a down migration']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(
      `run ${id} is waiting for a person (approval): coder asks: Down migration added. Approve now?`,
    );
    const again = p.status(id);
    expect(again.status).toBe('waiting_human');
    expect(again.pending).toMatchObject({
      key: '1',
      awaiting: 'approval',
      question: 'Down migration added. Approve now?',
      ask: 2,
    });
    expect(again.pending!.request_id).not.toBe(firstAsk.request_id);
    expect(again.pending!.request_id).toMatch(/-ask-2$/);
    expect(coderCalls(p)).toHaveLength(2);

    // The answer to ask 1 does not answer ask 2: resuming finds nothing to act on.
    expect(p.shop(['resume', String(id)]).code).toBe(3);
    expect(coderCalls(p)).toHaveLength(2);

    const ok = p.shop(['approve', `${id}.1.2`, '--message', 'ship it', '--by', 'dana']);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(lines(ok.stdout)[0]).toBe(`run ${id} call 1 (${id}.1.2): answered approved by dana`);
    expect(lines(ok.stdout).at(-1)).toBe(`run ${id} completed: "APPROVED|ship it"`);
    // approval + approve closes: no third invocation.
    expect(coderCalls(p)).toHaveLength(2);

    const answered = log(p, id).events.filter((e) => e.type === 'human_answered');
    expect(answered.map((e) => [e.actor, e.data?.ask, e.data?.verdict, e.data?.message])).toEqual([
      ['tester', 1, 'rejected', 'add a down migration'],
      ['dana', 2, 'approved', 'ship it'],
    ]);
  });

  it('killed while the feedback is with the agent: shop resume sends the same words to the same session again', async () => {
    const p = project([ASKS, { ...REWORKED, sleep_ms: 10_000 }, REWORKED]);
    const id = atTheAsk(p);
    const bg = p.spawnShop(['reject', String(id), 'add a down migration']);
    await until('the resumed agent', () => coderCalls(p).length === 2);
    bg.child.kill('SIGKILL');
    await bg.exited;
    expect(p.status(id).status).toBe('interrupted');

    const r = p.shop(['resume', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} completed: "DONE|reworked"`);
    const calls = coderCalls(p);
    expect(calls).toHaveLength(3);
    // The orphaned agent was killed, not left to report into the resumed step.
    expect(agentRunning(calls[1])).toBe(false);
    expect(calls[2]).toMatchObject({ resumed: true, session_id: calls[0].session_id });
    expect(calls[2].prompt).toBe(calls[1].prompt);
    expect(calls[2].prompt).toContain('add a down migration');
    // One answer, recorded once.
    expect(log(p, id).events.filter((e) => e.type === 'human_answered')).toHaveLength(1);
  });

  it('shop run --wait picks up a reject given in another process and sends it back in place', async () => {
    const p = project([ASKS, REWORKED]);
    const bg = p.spawnShop(['run', '--wait', 'migrate']);
    try {
      await until('the ask', () => bg.output().includes('[1] waiting for a person: Approve the migration?'));
      const id = runId(bg.output());
      const sessionId = p.status(id).executions[0].session_id;

      const r = p.shop(['reject', `${id}.1`, 'add a down migration']);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(lines(r.stdout)).toEqual([
        `run ${id} call 1 (${id}.1): answered rejected by tester`,
        `run ${id} is driven by process ${bg.child.pid}; it picks up the answer itself`,
      ]);

      expect(await bg.exited).toBe(0);
      const out = bg.output();
      expect(out).toContain(`  [1] coder resumed (session ${sessionId})`);
      expect(out).toContain(`run ${id} completed: "DONE|reworked"`);
      const calls = coderCalls(p);
      expect(calls).toHaveLength(2);
      expect(calls[1]).toMatchObject({ resumed: true, session_id: sessionId });
      expect(calls[1].prompt).toContain('add a down migration');
      expect(p.status(id)).toMatchObject({ status: 'completed', result: 'DONE|reworked' });
    } finally {
      if (bg.child.exitCode === null) bg.child.kill('SIGKILL');
    }
  });
});
