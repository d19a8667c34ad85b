import { describe, expect, it } from 'vitest';
import { LogJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, shopBin, type Project } from './harness.js';
import { Terminal } from './terminal.js';

const WORKFLOW =
  'function workflow(p) local r = pause("Ship the release?") return tostring(r.continue) .. "|" .. r.responder end\n';

/** A run waiting at its pause, and `shop continue <id> --claude` open in a terminal, the review session started. */
async function reviewing(p: Project): Promise<{ id: number; term: Terminal }> {
  p.write('workflows/release.lua', WORKFLOW);
  const run = p.shop(['run', 'release']);
  expect(run.code).toBe(3);
  const id = runId(run);
  const term = new Terminal(p, `'${process.execPath}' '${shopBin}' continue ${id} --claude`);
  const banner = await term.waitFor(/^> ?$/m);
  expect(banner).toContain('Opening a review session (_checkpoint, session ');
  expect(banner).toMatch(/Claude Code \(stand-in\) — new session [0-9a-f-]{36}/);
  expect(banner).toContain('You: Ship the release?');
  return { id, term };
}

const log = (p: Project, id: number) => LogJsonSchema.parse(JSON.parse(p.shop(['log', String(id), '--json']).stdout));

describe('shop continue <id> --claude on a pause, in a real terminal (tmux)', () => {
  it('opens a new _checkpoint session; its recommendation is shown, the person decides, the run completes', async () => {
    const p = makeProject();
    const { id, term } = await reviewing(p);
    try {
      term.type('tests pass');
      await term.waitFor('reported CONTINUE');
      term.type('/exit');
      const asked = await term.waitFor('Continue? [y/n]');
      expect(asked).toContain("The review session recommends: CONTINUE — done with the person's answer: tests pass");
      expect(asked).toContain('The decision is yours:');
      expect(asked).toContain(`Run ${id} (release) paused: Ship the release?   [ask ${id}.1]`);
      // Nothing is recorded until the person answers.
      expect(p.status(id).status).toBe('waiting_human');
      term.type('y');
      await term.waitFor('Note (optional): ');
      term.type('');
      const end = await term.waitFor('[exit ');
      expect(end).toContain('answered CONTINUE by tester');
      expect(end).toContain(`run ${id} completed: "true|tester"`);
      expect(end).toContain('[exit 0]');
    } finally {
      term.kill();
    }

    const chat = p.invocations().filter((i) => i.mode !== 'print');
    expect(chat.map((i) => i.mode)).toEqual(['interactive', 'said']);
    expect(chat[0]).toMatchObject({
      agent: '_checkpoint',
      call: '1',
      run: String(id),
      resumed: false,
      prompt: 'Ship the release?',
      cwd: p.dir,
    });
    expect(chat[0].system_prompt).toContain('**Checkpoint:** Ship the release?');
    expect(chat[1]).toMatchObject({ session_id: chat[0].session_id, text: 'tests pass' });
    expect(p.invocations().filter((i) => i.mode === 'print')).toEqual([]);

    const { events } = log(p, id);
    const review = events.filter((e) => e.type === 'review_session');
    expect(review).toEqual([
      expect.objectContaining({
        key: '1',
        actor: '_checkpoint',
        channel: 'continue',
        data: {
          session_id: chat[0].session_id,
          recommendation: "CONTINUE — done with the person's answer: tests pass",
        },
      }),
    ]);
    const answers = events.filter((e) => e.type === 'human_answered');
    expect(answers).toEqual([
      expect.objectContaining({
        key: '1',
        actor: 'tester',
        channel: 'continue',
        data: expect.objectContaining({ ask: 1, status: 'CONTINUE' }),
      }),
    ]);
    expect(events.indexOf(review[0])).toBeLessThan(events.indexOf(answers[0]));
  });

  it('the recommendation is only advice: the session says STOP, the person continues anyway', async () => {
    const p = makeProject();
    p.scenario({ agents: { _checkpoint: [{ reply_status: 'STOP' }] } });
    const { id, term } = await reviewing(p);
    try {
      term.type('the tests are red');
      await term.waitFor('reported STOP');
      term.type('/exit');
      const asked = await term.waitFor('Continue? [y/n]');
      expect(asked).toContain('The review session recommends: STOP — the person said: the tests are red');
      term.type('y');
      await term.waitFor('Note (optional): ');
      term.type('flaky test, known');
      const end = await term.waitFor('[exit ');
      expect(end).toContain(`run ${id} completed: "true|tester"`);
    } finally {
      term.kill();
    }
    const { events } = log(p, id);
    expect(events.find((e) => e.type === 'review_session')?.data).toMatchObject({
      recommendation: 'STOP — the person said: the tests are red',
    });
    expect(events.find((e) => e.type === 'human_answered')).toMatchObject({
      channel: 'continue',
      data: { status: 'CONTINUE', message: 'flaky test, known' },
    });
  });
});
