import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  killLeftovers,
  lines,
  makeProject,
  runId,
  startWorker,
  stopWorker,
  trail,
  until,
  type Project,
} from './harness.js';
import { withClock } from './clock-file.js';

/** Timers fired by shop watch on a fast-forwarded clock; notifiers and their trail; auto_approve; budget_usd. */

afterEach(killLeftovers);

/** A command notifier `<dir>/<name>.sh` that appends "<event> <name> <run>/<call>" to notices.txt. */
function notifier(p: Project, name: string, exit = 0): string {
  const file = join(p.dir, `${name}.sh`);
  writeFileSync(
    file,
    `#!/bin/sh\necho "$SHOP_NOTIFY_EVENT ${name} $SHOP_RUN_ID/$SHOP_CALL" >> "${p.dir}/notices.txt"\n${exit ? `echo boom >&2\nexit ${exit}\n` : ''}`,
  );
  chmodSync(file, 0o755);
  return file;
}
const notices = (p: Project) => (existsSync(join(p.dir, 'notices.txt')) ? lines(p.read('notices.txt')) : []);

/** `shop run <spec>` that stops at its first ask (exit 3); the run id. */
function waitingRun(p: Project, spec: string): number {
  const r = p.shop(['run', spec]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(3);
  return runId(r);
}

const PAUSE =
  'function workflow(prompt)\n  local r = pause("Ship it?")\n  return { cont = r.continue, by = r.responder }\nend\n';
const ofType = (p: Project, id: number, ...types: string[]) => trail(p, id).filter((e) => types.includes(e.type));

describe('on_timeout, with a fast-forwarded clock', () => {
  it('stuck: config{human_timeout} ends the run "no answer after 1h" when a new worker finds the timer due', async () => {
    const p = makeProject();
    const advance = withClock(p);
    p.write('workflows/t.lua', `config{ human_timeout = 3600 }\n${PAUSE}`);
    const id = waitingRun(p, 't');
    const a = await startWorker(p);
    await until('the run to be held', () =>
      a.output().includes(`run ${id} (t): held here while it waits for a person`),
    );
    expect(await stopWorker(a)).toBe(0);
    expect(lines(a.output()).at(-1)).toBe(
      'shop watch: stopping: 0 run(s) driven here left resumable, 1 waiting run(s) let go',
    );

    advance(3700);
    const b = await startWorker(p);
    await until('the timer to end the run', () => b.output().includes(`run ${id} (t): a timer fired: the run ended`));
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'no answer after 1h', pending: null });
    expect(ofType(p, id, 'timed_out', 'stuck').map((e) => [e.type, e.key, e.actor, e.data])).toEqual([
      ['timed_out', '1', 'system:timer', { after: '1h', on_timeout: 'stuck' }],
      ['stuck', null, 'system:timeout', { reason: 'no answer after 1h' }],
    ]);
    expect(await stopWorker(b)).toBe(0);
  });

  it("default: the decisions' defaults answer by system:timeout; without defaults the run ends stuck", async () => {
    const p = makeProject();
    const advance = withClock(p);
    const deadline = new Date(Date.now() + 600_000).toISOString();
    p.write(
      'workflows/d.lua',
      `function workflow(prompt)
  local r = pause{ message = "Release?", deadline = "${deadline}", on_timeout = "default", decisions = {
    { id = "go", type = "approval", prompt = "Go?", default = true },
    { id = "when", type = "choice", prompt = "When?", options = { "now", "later" }, default = "later" } } }
  return { answers = r.answers, by = r.responder, cont = r.continue }
end\n`,
    );
    p.write(
      'workflows/n.lua',
      'config{ human_timeout = 600, on_timeout = "default" }\nfunction workflow(prompt)\n  return pause{ message = "Budget?", decisions = { { id = "cap", type = "number", prompt = "Cap?" } } }.answers\nend\n',
    );
    const withDefaults = waitingRun(p, 'd');
    const without = waitingRun(p, 'n');
    const w = await startWorker(p);
    await until('both runs held', () => w.output().includes(`run ${without} (n): held here`));
    advance(700);
    await until('the defaults to complete the run', () => w.output().includes(`run ${withDefaults} (d) completed: `));
    expect(p.status(withDefaults)).toMatchObject({
      status: 'completed',
      result: { answers: { go: true, when: 'later' }, by: 'system:timeout', cont: true },
    });
    expect(
      ofType(p, withDefaults, 'timed_out', 'human_answered').map((e) => [
        e.type,
        e.actor,
        e.data?.on_timeout ?? e.data?.message,
      ]),
    ).toEqual([
      ['timed_out', 'system:timer', 'default'],
      ['human_answered', 'system:timeout', 'the defaults, on timeout'],
    ]);
    await until('the other run to end', () => p.status(without).status === 'stuck');
    expect(p.status(without).reason).toMatch(/^no answer after 10m, and the defaults do not answer it \(.*cap.*\)$/);
    expect(await stopWorker(w)).toBe(0);
  });

  it('notify_again: the notice goes out again at every timeout and the run keeps waiting', async () => {
    const p = makeProject();
    const advance = withClock(p);
    const team = notifier(p, 'team');
    p.write(
      'workflows/a.lua',
      `config{ on_timeout = "notify_again", notify = { "command:${team}" } }
function workflow(prompt)
  return pause{ message = "Ship it?", deadline = 600 }.continue
end\n`,
    );
    const id = waitingRun(p, 'a');
    expect(notices(p)).toEqual([`waiting team ${id}/1`]);
    const w = await startWorker(p);
    await until('the run to be held', () => w.output().includes(`run ${id} (a): held here`));
    advance(700);
    await until('a second notice', () => notices(p).length === 2);
    advance(1400);
    await until('a third notice', () => notices(p).length === 3);
    expect(notices(p)).toEqual([`waiting team ${id}/1`, `timeout team ${id}/1`, `timeout team ${id}/1`]);
    await until('the notices in the trail', () => ofType(p, id, 'notified').length === 3);
    expect(ofType(p, id, 'timed_out', 'notified').map((e) => [e.type, e.data])).toEqual([
      ['notified', { event: 'waiting', to: [`command:${team}`] }],
      ['timed_out', { after: '10m', on_timeout: 'notify_again' }],
      ['notified', { event: 'timeout', to: [`command:${team}`] }],
      ['timed_out', { after: '10m', on_timeout: 'notify_again' }],
      ['notified', { event: 'timeout', to: [`command:${team}`] }],
    ]);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '1' } });
    // Still answerable: the worker resumes it.
    expect(p.shop(['approve', String(id)]).code).toBe(0);
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(await stopWorker(w)).toBe(0);
  });

  it('reminder, escalation, reminder to the escalation target — in order, across a worker restart', async () => {
    const p = makeProject();
    const advance = withClock(p);
    const [team, boss] = [notifier(p, 'team'), notifier(p, 'boss')];
    p.write(
      'workflows/c.lua',
      `config{ notify = { "command:${team}" }, remind_after = 600, escalate_after = 1800, escalate_to = { "command:${boss}" } }\n${PAUSE}`,
    );
    const id = waitingRun(p, 'c');
    const a = await startWorker(p);
    await until('the run to be held', () => a.output().includes(`run ${id} (c): held here`));
    advance(700);
    await until('the reminder', () => notices(p).length === 2);
    // The worker says so once its pass is over: the notifier may have run a moment before.
    await until('the worker to report the timer', () => a.output().includes(`run ${id} (c): a timer fired\n`));
    expect(await stopWorker(a)).toBe(0);

    advance(1900);
    const b = await startWorker(p);
    await until('the escalation', () => notices(p).length === 3);
    advance(2500);
    await until('the reminder to the escalation target', () => notices(p).length === 4);
    expect(notices(p)).toEqual([
      `waiting team ${id}/1`,
      `reminder team ${id}/1`,
      `escalation boss ${id}/1`,
      `reminder boss ${id}/1`,
    ]);
    await until('the notices in the trail', () => ofType(p, id, 'notified').length === 4);
    expect(ofType(p, id, 'reminded', 'escalated', 'notified').map((e) => [e.type, e.actor, e.data])).toEqual([
      ['notified', 'shop', { event: 'waiting', to: [`command:${team}`] }],
      ['reminded', 'system:timer', { after: '10m', to: [`command:${team}`] }],
      ['notified', 'shop', { event: 'reminder', to: [`command:${team}`] }],
      ['escalated', 'system:timer', { after: '30m', to: [`command:${boss}`] }],
      ['notified', 'shop', { event: 'escalation', to: [`command:${boss}`] }],
      ['reminded', 'system:timer', { after: '40m', to: [`command:${boss}`] }],
      ['notified', 'shop', { event: 'reminder', to: [`command:${boss}`] }],
    ]);
    expect(p.status(id).status).toBe('waiting_human');
    expect(await stopWorker(b)).toBe(0);
  });
});

describe('notifiers', () => {
  it('a webhook receives the documented JSON body for a new ask', async () => {
    const got: { req: IncomingMessage; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => (got.push({ req, body }), res.end('ok')));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const p = makeProject();
      p.write(
        'workflows/hook.lua',
        `config{ notify = { "webhook:http://127.0.0.1:${port}/hook/S3CRET?sig=abc" } }
function workflow(prompt)
  run("coder", "work")
  return pause("Ship it?").continue
end\n`,
      );
      const before = Date.now();
      // The foreground run sends its notices before it exits.
      const r = await p.shopAsync(['run', 'hook']);
      expect(r.code).toBe(3);
      const id = runId(r.stdout);
      expect(got.map(({ req }) => [req.method, req.url, req.headers['content-type']])).toEqual([
        ['POST', '/hook/S3CRET?sig=abc', 'application/json'],
      ]);
      const body = JSON.parse(got[0].body);
      expect(body).toEqual({
        event: 'waiting',
        run: id,
        spec: 'hook',
        call: '2',
        ask: 1,
        handle: `${id}.2`,
        awaiting: 'checkpoint',
        agent: '_checkpoint',
        question: 'Ship it?',
        answer_with: [`shop continue ${id}.2`, `shop approve ${id}.2`, `shop reject ${id}.2 "why"`],
        answer_url: null,
        waited_seconds: 0,
        project: p.dir,
        at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      });
      expect(Date.parse(body.at) >= before && Date.parse(body.at) <= Date.now()).toBe(true);
      expect(ofType(p, id, 'notified').map((e) => e.data)).toEqual([
        { event: 'waiting', to: [`webhook:http://127.0.0.1:${port}/…`] },
      ]);
    } finally {
      server.close();
    }
  });

  it('a failing notifier leaves the run unaffected: notify_failed in the trail, no secret shown', async () => {
    // A port nothing listens on.
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    await new Promise((r) => server.close(r));
    const p = makeProject();
    const fail = notifier(p, 'fail', 1);
    p.write(
      'workflows/f.lua',
      `config{ notify = { "webhook:http://127.0.0.1:${port}/hooks/PATHTOKEN42?token=QUERYTOKEN42", "command:${fail}" } }\n${PAUSE}`,
    );
    const run = p.shop(['run', 'f']);
    expect(run.code).toBe(3);
    const id = runId(run);
    expect(ofType(p, id, 'notify_failed', 'notified').map((e) => e.data)).toEqual([
      {
        event: 'waiting',
        to: `webhook:http://127.0.0.1:${port}/…`,
        error: `webhook:http://127.0.0.1:${port}/…: ECONNREFUSED (3 attempts)`,
      },
      { event: 'waiting', to: `command:${fail}`, error: `command:${fail}: ${fail} exited with code 1: boom` },
    ]);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human', pending: { key: '1' } });
    const approve = p.shop(['approve', String(id)]);
    expect(approve.code).toBe(0);
    expect(p.status(id)).toMatchObject({ status: 'completed', result: { cont: true, by: 'tester' } });
    const shown = [
      run,
      approve,
      p.shop(['log', String(id)]),
      p.shop(['log', String(id), '--json']),
      p.shop(['status', String(id), '--json']),
    ]
      .map((r) => r.stdout + r.stderr)
      .join('\n');
    expect(shown).toContain(`127.0.0.1:${port}/…`);
    expect(shown).not.toMatch(/PATHTOKEN42|QUERYTOKEN42/);
  });
});

describe('auto_approve and budget_usd', () => {
  it('an auto-approved checkpoint: the run completes without waiting, answered by system:policy with the rule', () => {
    const p = makeProject();
    p.write(
      'workflows/stage.lua',
      'config{ auto_approve = { { awaiting = "checkpoint" } } }\nfunction workflow(prompt)\n  local r = pause("Deploy to staging?")\n  return { cont = r.continue, by = r.responder }\nend\n',
    );
    const r = p.shop(['run', 'stage']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    expect(lines(r.stdout)).toEqual([
      `run ${id} started (stage)`,
      '  [1] answered by system:policy; resuming',
      `run ${id} completed: {"cont":true,"by":"system:policy"}`,
    ]);
    expect(ofType(p, id, 'human_answered').map((e) => [e.key, e.actor, e.data])).toEqual([
      [
        '1',
        'system:policy',
        {
          ask: 1,
          verdict: 'approved',
          status: null,
          message: 'auto_approve {"awaiting":"checkpoint"}',
          decisions: null,
        },
      ],
    ]);
  });

  it('a run stopped by its budget: exit 4 "budget of $1.00 spent: $1.30"; run() budget_usd is --max-budget-usd', () => {
    const p = makeProject();
    p.scenario({
      agents: {
        coder: [
          { status: 'DONE', cost: 0.6 },
          { status: 'DONE', cost: 0.7 },
          { status: 'DONE', cost: 0.1 },
        ],
      },
    });
    p.write(
      'workflows/b.lua',
      'config{ budget_usd = 1 }\nfunction workflow(prompt)\n  run("coder", { prompt = "one", budget_usd = 0.75 })\n  run("coder", "two")\n  run("coder", "three")\n  return "done"\nend\n',
    );
    const r = p.shop(['run', 'b']);
    expect(r.code).toBe(4);
    const id = runId(r);
    expect(lines(r.stdout).at(-1)).toBe(`run ${id} is stuck: budget of $1.00 spent: $1.30`);
    const s = p.status(id);
    expect(s).toMatchObject({ status: 'stuck', reason: 'budget of $1.00 spent: $1.30' });
    expect(s.cost_usd).toBeCloseTo(1.3, 6);
    // The call's own cap, then what is left of the run's; the third agent never started.
    expect(p.invocations().map((i) => [i.prompt, i.max_budget_usd])).toEqual([
      ['one', 0.75],
      ['two', 0.4],
    ]);
    expect(ofType(p, id, 'budget_spent').map((e) => [e.key, e.data])).toEqual([
      ['3', { reason: 'budget of $1.00 spent: $1.30' }],
    ]);
  });
});
