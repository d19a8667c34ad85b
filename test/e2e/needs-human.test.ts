import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, type Project } from './harness.js';

/** The coder first asks a person, then (on any later invocation) finishes. */
const ASKS_FIRST = {
  agents: {
    coder: [
      { status: 'NEEDS_HUMAN', reason: 'Which database?', awaiting: 'input' },
      { status: 'DONE', summary: 'fixed' },
    ],
  },
};

/** `shop run bugfix x` up to the coder's question; checks the suspension and returns the run id. */
function suspendOnQuestion(p: Project): number {
  p.scenario(ASKS_FIRST);
  const r = p.shop(['run', 'bugfix', 'x']);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  const id = runId(r);
  expect(lines(r.stdout)).toEqual(
    expect.arrayContaining([
      `run ${id} is waiting for a person (input): coder asks: Which database?`,
      `  talk to the agent:  shop continue ${id}.1`,
      `  answer it:          shop answer ${id}.1 "…"`,
      `  reject:             shop reject ${id}.1 "feedback"   (returns REJECTED to the workflow)`,
    ]),
  );
  expect(p.list()).toEqual([
    expect.objectContaining({
      id,
      status: 'waiting_human',
      agent: 'coder',
      awaiting: 'input',
      waiting_for: 'Which database?',
    }),
  ]);
  // The awaiting kind shows in the plain listing too.
  expect(lines(p.shop(['list']).stdout)).toEqual([
    expect.stringMatching(/^ID\s+SPEC\s+STATUS\s+AGENT\s+AWAITING\s+AGE\s+COST\s+NOW \/ WAITING FOR \/ REASON$/),
    expect.stringMatching(
      new RegExp(`^${id}\\s+bugfix\\s+waiting_human\\s+coder\\s+input\\s+\\d+s\\s+\\$0\\.01\\s+Which database\\?$`),
    ),
  ]);
  return id;
}

const callsOf = (p: Project, call: string) => p.invocations().filter((i) => i.mode === 'print' && i.call === call);

describe('NEEDS_HUMAN suspends the run durably', () => {
  it('shop signal --status DONE answers for the agent and the run completes', () => {
    const p = makeProject();
    const id = suspendOnQuestion(p);
    const waiting = p.status(id);
    expect(waiting.pending).toMatchObject({ key: '1', kind: 'run', agent: 'coder', question: 'Which database?' });

    const r = p.shop(['signal', `${id}.1`, '--status', 'DONE', '--message', 'use postgres']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(lines(r.stdout)[0]).toBe(`run ${id} call 1 (${id}.1): answered DONE by tester`);
    expect(r.stdout).toContain(`run ${id} completed`);

    const done = p.status(id);
    expect(done.status).toBe('completed');
    expect(done.pending).toBeNull();
    expect(done.executions[0]).toMatchObject({
      key: '1',
      status: 'completed',
      result: { status: 'DONE', summary: 'use postgres', responder: 'tester' },
    });
    // The answer was not sent back to the agent: the coder ran once for call 1.
    expect(callsOf(p, '1')).toHaveLength(1);
    // The answer flowed on into the script: the next prompt carries it.
    expect(callsOf(p, '2')[0].prompt).toContain('use postgres');
  });

  it("a new DONE in the waiting call's signal file answers nothing: only a person, or the person's session, does", () => {
    const p = makeProject();
    const id = suspendOnQuestion(p);
    const sessionId = p.status(id).executions[0].session_id;

    // Any process that lists .shop/signals can write the waiting call's file: it is not read.
    const file = p.signalFile(id, '1', 'coder');
    expect(existsSync(file)).toBe(true);
    p.writeSignal(id, '1', 'coder', { status: 'DONE', summary: 'postgres it is' });
    const r = p.shop(['resume', String(id)]);
    expect(r.code).toBe(3);
    expect(r.stdout).not.toContain('resuming');
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '1', ask: 1 } });
    expect(callsOf(p, '1')).toHaveLength(1);

    // The person's answer still lands, on the same session.
    const a = p.shop(['answer', String(id), 'use postgres']);
    expect(a.code).toBe(0);
    const done = p.status(id);
    expect(done.status).toBe('completed');
    expect(done.executions[0]).toMatchObject({ status: 'completed', session_id: sessionId });
    expect(callsOf(p, '2')[0].prompt).not.toContain('postgres it is');
  });

  it('a signal file still saying NEEDS_HUMAN is no answer: resume stays waiting', () => {
    const p = makeProject();
    const id = suspendOnQuestion(p);
    const r = p.shop(['resume', String(id)]);
    expect(r.code).toBe(3);
    expect(p.status(id).status).toBe('waiting_human');
    expect(p.invocations()).toHaveLength(1);
  });

  it('run(agent, {human=false}) hands NEEDS_HUMAN to the script instead of suspending', () => {
    const p = makeProject();
    p.write(
      'workflows/nohuman.lua',
      [
        'function workflow(prompt)',
        '  local r = run("coder", { prompt = prompt, human = false })',
        '  return { got = r.status, reason = r.reason }',
        'end',
      ].join('\n'),
    );
    p.scenario(ASKS_FIRST);
    const r = p.shop(['run', 'nohuman', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    const done = p.status(id);
    expect(done.status).toBe('completed');
    expect(done.result).toEqual({ got: 'NEEDS_HUMAN', reason: 'Which database?' });
    expect(done.executions.map((e) => [e.key, e.status])).toEqual([['1', 'completed']]);
    expect(p.invocations()).toHaveLength(1);
  });
});
