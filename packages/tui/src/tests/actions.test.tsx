import { localTime, writeSignal } from '@shop/core';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

const status = (lines: string[]) => lines.slice(-3, -1).join(' ').trim();
const row = (lines: string[], id: number) =>
  lines.find((l) => l.startsWith(`› ${id} `) || l.startsWith(`  ${id} `)) ?? '';

describe('continue: the agent’s own Claude session', () => {
  it('hands the terminal to claude --resume in the session’s directory; when the agent reported anew the run resumes', async () => {
    w = testWorld({
      coder: [
        { status: 'NEEDS_HUMAN', reason: 'Which database?' },
        { status: 'DONE', summary: 'used postgres' },
      ],
    });
    const id = await w.run('return run("coder").summary');
    const t = renderTui(w, {
      env: { SHOP_CLAUDE_BIN: '/bin/claude-standin', PATH: '/usr/bin' },
      // The person talks it through; the agent reports DONE from its shell.
      runAttached: async (cmd) => (
        writeSignal(cmd.env.SHOP_SIGNAL_FILE!, { status: 'DONE', summary: 'use postgres' }),
        { code: 0, error: null }
      ),
      onResume: (runId) => void w.drive(runId),
    });
    await t.ready();
    await t.press('c');
    await t.until(() => expect(row(t.lines(), id)).toMatch(/✓ completed +- +use postgres/));
    expect(t.attached).toEqual([
      {
        command: '/bin/claude-standin',
        args: ['--resume', 'session-1'],
        cwd: w.dir,
        env: expect.objectContaining({
          SHOP_RUN_ID: String(id),
          SHOP_CALL: '1',
          SHOP_AGENT: 'coder',
          SHOP_SESSION_ID: 'session-1',
          SHOP_SIGNAL_FILE: expect.stringMatching(/signals\/1\.1\.coder\.[0-9a-f]{24}\.json$/),
        }),
      },
    ]);
    expect(status(t.lines())).toBe(
      `coder reported DONE; run ${id} resumes in the background (log: .shop/runs/${id}/tui-resume.log)`,
    );
    expect((await w.store.listEvents(id)).find((e) => e.type === 'human_answered')).toMatchObject({
      actor: 'ann',
      channel: 'continue',
      data: { status: 'DONE', message: 'use postgres' },
    });
    // The agent's report became ann's answer: a row in the store, first answer wins.
    expect(await w.store.getAnswer(id, '1', 1)).toMatchObject({
      status: 'DONE',
      responder: 'ann',
      channel: 'continue',
    });
  });

  it('says the run still waits when the agent did not report, and shows why claude could not start', async () => {
    w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
    const id = await w.run('run("coder")');
    let fail = false;
    const t = renderTui(w, {
      runAttached: async () => (fail ? { code: null, error: 'ENOENT' } : { code: 0, error: null }),
    });
    await t.ready();
    await t.press('c');
    await t.until(() =>
      expect(status(t.lines())).toBe(
        `run ${id} still waits: coder has not reported a new status (c opens its session again)`,
      ),
    );
    fail = true;
    await t.press('c');
    await t.until(() =>
      expect(status(t.lines())).toBe('✗ could not open claude: ENOENT (install Claude Code or set SHOP_CLAUDE_BIN)'),
    );
    expect(t.resumed).toEqual([]);
  });

  it("hands a Codex agent's session to codex (resume <thread>), naming that CLI when it cannot start", async () => {
    w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
    w.world.agents.set('coder', { cli: 'codex' });
    const id = await w.run('run("coder")');
    const session = (await w.store.getExecution(id, '1'))!.sessionId!;
    const opened: { command: string; args: string[] }[] = [];
    const t = renderTui(w, { runAttached: async (cmd) => (opened.push(cmd), { code: null, error: 'ENOENT' }) });
    await t.ready();
    await t.press('c');
    await t.until(() =>
      expect(status(t.lines())).toBe('✗ could not open codex: ENOENT (install Codex or set SHOP_CODEX_BIN)'),
    );
    expect(opened).toMatchObject([{ command: 'codex', args: ['resume', session] }]);
  });
});

describe("an agent's question (AskUserQuestion) deferred to a person", () => {
  it('shows the question; A with the answer typed in sends it to the agent, keyed by its question, when the run resumes', async () => {
    const question = {
      question: 'Which database?',
      header: 'DB',
      options: [{ label: 'Postgres' }, { label: 'SQLite' }],
      multiSelect: false,
    };
    w = testWorld({
      coder: [
        { defer: { name: 'AskUserQuestion', input: { questions: [question] } } },
        { status: 'DONE', summary: 'used it' },
      ],
    });
    w.world.agents.set('coder', { gates: [{ hold: ['AskUserQuestion'], allow: [] }] });
    const id = await w.run('return run("coder").summary');
    const t = renderTui(w, { rows: 12 });
    await t.ready();
    await t.until(() => expect(t.lines().join('\n')).toContain('Which database?'));
    await t.press('A');
    await t.until(() => expect(t.lines()[0]).toBe(`Approve ask ${id}.1 — coder asks: Which database?`));
    await t.press(...'SQLite', KEYS.enter);
    await t.confirm();
    await t.until(() =>
      expect(status(t.lines())).toMatch(new RegExp(`^run ${id} call 1 \\(${id}\\.1\\): answered approved by ann`)),
    );
    expect(await w.drive(id)).toMatchObject({ status: 'completed' });
    const resumed = w.world.runner.invocations.at(-1)!;
    expect(resumed.gate).toEqual({
      tool_use_id: 'toolu_1',
      decision: 'allow',
      updatedInput: { questions: [question], answers: { 'Which database?': 'SQLite' } },
    });
    expect(
      (await w.store.listEvents(id)).filter((e) => e.type.startsWith('tool_')).map((e) => [e.type, e.actor]),
    ).toEqual([
      ['tool_deferred', 'coder'],
      ['tool_decided', 'ann'],
    ]);
  });
});

describe('approve, reject, stop, open the editor', () => {
  it('A approves with a message typed in; R asks for the feedback the verdict needs, inline, recording nothing without it', async () => {
    w = testWorld({ reviewer: [{ status: 'NEEDS_HUMAN', reason: 'Ship it?', awaiting: 'review' }] });
    const first = await w.run('return run("reviewer").status');
    const second = await w.run('return run("reviewer").status');
    const t = renderTui(w, { rows: 12 });
    await t.ready();
    await t.press('R');
    await t.until(() => expect(t.lines()[0]).toBe(`Reject ask ${second}.1 — reviewer asks: Ship it?`));
    expect(t.lines()[1]).toBe('Feedback (required): ▏');
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[2]).toBe('✗ rejecting sends reviewer back to work: say what to change'));
    expect(await w.store.listAnswers(second)).toEqual([]);
    await t.press(KEYS.esc, 'j', 'A');
    await t.until(() => expect(t.lines()[0]).toBe(`Approve ask ${first}.1 — reviewer asks: Ship it?`));
    await t.press(...'lgtm', KEYS.enter);
    await t.until(() =>
      expect(t.lines().slice(0, 2)).toEqual([`Approve ask ${first}.1 — reviewer asks: Ship it?`, 'Message: lgtm']),
    );
    await t.confirm();
    await t.until(() =>
      expect(status(t.lines())).toBe(
        `run ${first} call 1 (${first}.1): answered approved by ann; run ${first} resumes in the background (log: .shop/runs/${first}/tui-resume.log)`,
      ),
    );
    expect(await w.store.listAnswers(first)).toMatchObject([
      { verdict: 'approved', message: 'lgtm', channel: 'tui', responder: 'ann' },
    ]);
    expect(t.resumed).toEqual([first]);
  });

  it('keys typed at once count one by one, in order: the approval goes to the run the cursor reached', async () => {
    w = testWorld({ reviewer: [{ status: 'NEEDS_HUMAN', reason: 'Ship it?', awaiting: 'review' }] });
    const [a, b, c] = [await w.run('run("reviewer")'), await w.run('run("reviewer")'), await w.run('run("reviewer")')];
    const t = renderTui(w);
    await t.ready();
    // What follows A goes to the prompt A opened.
    t.stdin.write('jjAfine');
    await t.until(() => expect(t.lines()[0]).toBe(`Approve ask ${a}.1 — reviewer asks: Ship it?`));
    await t.until(() => expect(t.lines()[1]).toBe('Message (optional): fine▏'));
    // In a text field text that comes at once is one edit; an Enter with it still sends.
    t.stdin.write(' by me!\x7f\r');
    await t.confirm();
    await t.until(() =>
      expect(status(t.lines())).toMatch(new RegExp(`^run ${a} call 1 \\(${a}\\.1\\): answered approved by ann`)),
    );
    expect(await w.store.listAnswers(a)).toMatchObject([{ verdict: 'approved', message: 'fine by me' }]);
    expect([await w.store.listAnswers(b), await w.store.listAnswers(c)]).toEqual([[], []]);
  });

  it('keys that come one by one faster than frames count one by one too', async () => {
    w = testWorld({ reviewer: [{ status: 'NEEDS_HUMAN', reason: 'Ship it?', awaiting: 'review' }] });
    const [a] = [await w.run('run("reviewer")'), await w.run('run("reviewer")'), await w.run('run("reviewer")')];
    const t = renderTui(w);
    await t.ready();
    // Three reads before anything renders (a busy machine, a fast typist).
    for (const k of ['j', 'j', 'A']) t.stdin.write(k);
    await t.until(() => expect(t.lines()[0]).toBe(`Approve ask ${a}.1 — reviewer asks: Ship it?`));
  });

  it('leaves the answer to a live owner that holds the run, and says so', async () => {
    w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
    const id = await w.run('run("coder")');
    await w.store.claimRun(id, { token: 'watcher', host: 'test-host', pid: 4242, pidStart: null }, 60_000, null);
    const t = renderTui(w);
    await t.ready();
    await t.press('A', ...'postgres', KEYS.enter);
    await t.confirm();
    await t.until(() =>
      expect(status(t.lines())).toBe(
        `run ${id} call 1 (${id}.1): answered approved by ann; process 4242 drives run ${id} and picks the answer up`,
      ),
    );
    expect(t.resumed).toEqual([]);
  });

  it('s stops a run with a reason; o opens $VISUAL on the workspace', async () => {
    w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
    const id = await w.run('run("coder")');
    const t = renderTui(w, { env: { VISUAL: 'vim -n' }, runAttached: async () => ({ code: 3, error: null }) });
    await t.ready();
    await t.press('o');
    await t.until(() => expect(status(t.lines())).toBe('back from vim (exit 3)'));
    expect(t.attached).toMatchObject([{ command: 'vim', args: ['-n', w.dir], cwd: w.dir }]);
    await t.press('s');
    await t.until(() => expect(t.lines()[0]).toBe(`Stop run ${id}`));
    await t.press(...'not needed', KEYS.enter);
    await t.until(() =>
      expect(t.lines().slice(0, 2)).toEqual([`Stop run ${id} (flow: the task)?`, 'Reason: not needed']),
    );
    await t.confirm();
    await t.until(() => expect(row(t.lines(), id)).toMatch(/■ stuck +- +not needed/));
    expect(status(t.lines())).toBe(`run ${id} stopped: stuck — not needed`);
  });

  it('A on a run whose driver is gone says it is interrupted and how to resume it, not "it is running"', async () => {
    w = testWorld();
    const id = await w.working('architect', 'Edit b.ts');
    const run = await w.store.getRun(id);
    expect(await w.store.releaseRun(id, run!.owner!.token, { ifIdle: false })).toBe('released');
    const t = renderTui(w, { env: {} });
    await t.ready();
    await t.press('A');
    await t.until(() =>
      expect(status(t.lines())).toMatch(
        new RegExp(
          `^✗ run ${id} is not waiting for a person \\(it is interrupted: its driver is gone since .+; pick it up with: shop resume ${id}\\)$`,
        ),
      ),
    );
  });

  it("a run whose driver is gone: its open call's row says since when, with no running clock; its activity is the last one", async () => {
    w = testWorld();
    const id = await w.working('architect', 'Edit b.ts');
    const run = await w.store.getRun(id);
    expect(await w.store.releaseRun(id, run!.owner!.token, { ifIdle: false })).toBe('released');
    const gone = (await w.store.getRun(id))!.updatedAt;
    const t = renderTui(w, { env: {} });
    await t.ready();
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe(`Run ${id}: flow — the task`));
    const call = () => t.lines().find((l) => /^› #1 architect/.test(l)) ?? '';
    await t.until(() =>
      expect(call()).toMatch(
        new RegExp(`^› #1 architect +⚠ gone ${localTime(gone).slice(11, 19)} +- last: Edit b\\.ts$`),
      ),
    );
    expect(t.lines()[2]).toBe('Last activity: architect: Edit b.ts');
    expect(t.lines().join('\n')).not.toMatch(/running \d/);
  });

  it('a failed action shows in the status line and the app goes on', async () => {
    w = testWorld();
    const id = await w.run('return "ok"');
    const t = renderTui(w, { env: {} });
    await t.ready();
    await t.press('c');
    await t.until(() => expect(status(t.lines())).toBe(`✗ run ${id} is not waiting for a person (it is completed)`));
    await t.press('o');
    await t.until(() =>
      expect(status(t.lines())).toBe('✗ set $VISUAL or $EDITOR to open the workspace (e.g. export EDITOR=vim)'),
    );
    await t.press('s');
    await t.until(() => expect(status(t.lines())).toBe(`✗ run ${id} has already ended (completed)`));
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe(`Run ${id}: flow — the task`));
  });
});

describe('n: start a run', () => {
  it('asks for a workflow (refusing an unknown one where typed), then its prompt, and queues the run for the workers', async () => {
    w = testWorld();
    mkdirSync(join(w.dir, 'workflows'), { recursive: true });
    const hello = 'function workflow(prompt)\n  return prompt\nend\n';
    writeFileSync(join(w.dir, 'workflows', 'hello.lua'), hello);
    // The engine reads workflows through its ports (the test world's files).
    w.world.workflows.set(join(w.dir, 'workflows', 'hello.lua'), hello);
    const t = renderTui(w);
    await t.ready();
    await t.press('n');
    await t.until(() => expect(t.lines().slice(0, 2)).toEqual(['Start a run', 'Workflow (hello): ▏']));
    await t.press(...'nope', KEYS.enter);
    await t.until(() => expect(t.lines()[2]).toBe('✗ no workflow "nope": one of hello'));
    await t.press(...'\b\b\b\bhello', KEYS.enter);
    await t.until(() => expect(t.lines()[0]).toBe('Start a run of hello'));
    await t.press(...'say hi', KEYS.enter);
    await t.until(() =>
      expect(t.lines().slice(0, 2)).toEqual(['Queue a run of hello for the workers?', 'Prompt: say hi']),
    );
    await t.confirm();
    await t.until(() => expect(status(t.lines())).toMatch(/^run \d+ queued \(hello\); no worker is watching/));
    const [run] = await w.store.listQueued(10);
    expect(run).toMatchObject({ spec: 'hello', prompt: 'say hi', status: 'queued' });
    expect(run!.trigger).toEqual({ kind: 'cli', name: 'tui', by: 'ann', data: null });
    await t.until(() => expect(row(t.lines(), run!.id)).toMatch(/… queued/));
  });
});
