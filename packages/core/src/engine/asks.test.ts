import { describe, expect, it } from 'vitest';
import { ANSWER_LINK_TTL_MS, verifyAnswerLink } from '../access/answer-link.js';
import { setPublicUrl } from '../access/public-url.js';
import { driveRun } from './drive-run.js';
import { flowsClosedAfterEach } from './testing/flows.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

const setup = flowsClosedAfterEach('shop-asks-');

const events = async (w: ScriptedWorld, id: number, type: string) =>
  (await w.store.listEvents(id)).filter((e) => e.type === type);

describe('auto_approve', () => {
  it('answers a matching ask at once, as system:policy with the rule', async () => {
    const { world, start, drive } = setup();
    const id = await start(
      'config{ auto_approve = { { awaiting = "checkpoint" } }, notify = { "desktop" } }\nreturn pause("Deploy to staging?").responder',
    );
    expect(await drive(id)).toEqual({ status: 'completed', result: 'system:policy' });
    const [answered] = await events(world, id, 'human_answered');
    expect(answered).toMatchObject({
      actor: 'system:policy',
      channel: 'engine',
      data: { verdict: 'approved', message: 'auto_approve {"awaiting":"checkpoint"}' },
    });
    // Nobody was needed, so nobody was told.
    expect(world.sent).toEqual([]);
  });

  it('matches by agent or pause message; an ask approve cannot answer is left to people, and they are told', async () => {
    const { world, start, drive } = setup({
      linter: [{ status: 'NEEDS_HUMAN', reason: 'ok to fix?', awaiting: 'approval' }],
    });
    world.agents.set('linter', {});
    const id =
      await start(`config{ auto_approve = { { agent = "linter" }, { pause = "Pick one" } }, notify = { "desktop" } }
      local lint = run("linter").status
      local pick = pause{ message = "Pick one", decisions = { { id = "n", type = "number", prompt = "How many?" } } }
      return lint`);
    const outcome = await drive(id);
    expect(outcome).toMatchObject({ status: 'waiting_human', execution: { key: '2', kind: 'pause' } });
    expect((await world.store.getExecution(id, '1'))!.result).toMatchObject({
      status: 'APPROVED',
      responder: 'system:policy',
    });
    expect((await events(world, id, 'auto_approve_skipped'))[0].data).toMatchObject({
      rule: { pause: 'Pick one' },
      why: expect.stringMatching(/n: /),
    });
    expect(world.sent.map((s) => [s.targets, s.notice.event, s.notice.call])).toEqual([[['desktop'], 'waiting', '2']]);
  });
});

describe('notifications', () => {
  it('tell the notify targets once per new ask, with how to answer; a replay tells no one again', async () => {
    const { world, start, drive } = setup();
    const id = await start(
      'config{ notify_on_waiting = { "webhook:https://example.com/hook" } }\nreturn pause("Ship?").continue',
    );
    await drive(id);
    await drive(id);
    expect(world.sent).toHaveLength(1);
    expect(world.sent[0]).toMatchObject({
      targets: ['webhook:https://example.com/hook'],
      notice: {
        event: 'waiting',
        run: id,
        spec: 'flow',
        call: '1',
        ask: 1,
        handle: `${id}.1`,
        awaiting: 'checkpoint',
        agent: '_checkpoint',
        question: 'Ship?',
        answer_with: [`shop continue ${id}.1`, `shop approve ${id}.1`, `shop reject ${id}.1 "why"`],
      },
    });
  });
});

describe('budgets', () => {
  it('give each call what is left of the run budget, and stop the run before an agent past it', async () => {
    const { world, start, drive } = setup({ coder: [{ costUsd: 0.015 }] });
    const id = await start(
      'config{ budget_usd = 0.02 }\nfor i = 1, 3 do run("coder", { prompt = "step " .. i, budget_usd = 0.01 }) end\nreturn "done"',
    );
    expect(await drive(id)).toEqual({ status: 'stuck', reason: 'budget of $0.02 spent: $0.03' });
    expect(world.runner.invocations.map((i) => i.budgetUsd)).toEqual([0.01, 0.005]);
    expect((await events(world, id, 'budget_spent'))[0]).toMatchObject({
      key: '3',
      data: { reason: 'budget of $0.02 spent: $0.03' },
    });
    expect(await world.store.loadExecutions(id)).toHaveLength(2);
  });
});

describe('timers (fast-forwarded clock)', () => {
  /** Drives with --wait; `advance` runs once the run waits, and again until the drive ends. */
  async function waitDrive(world: ScriptedWorld, id: number, advance: (tick: number) => void) {
    let tick = 0;
    const timer = setInterval(() => advance(++tick), 100);
    try {
      return await driveRun(world.ports, id, { wait: true });
    } finally {
      clearInterval(timer);
    }
  }

  /** `by` approves the run's first ask (call 1), from the CLI. */
  function approve(world: ScriptedWorld, id: number, by: string) {
    return world.store.recordAnswer({
      runId: id,
      key: '1',
      ask: 1,
      verdict: 'approved',
      status: null,
      message: null,
      decisions: null,
      responder: by,
      channel: 'cli',
    });
  }

  /**
   * Past human_timeout twice, each time only once the last timeout's notice went out (a loaded
   * machine's driver may take longer than a tick), then ann approves.
   */
  function twoTimeoutsThenAnswer(world: ScriptedWorld, id: number) {
    let advanced = 0;
    let answered = false;
    return () => {
      const timeouts = world.sent.filter((s) => s.notice.event === 'timeout').length;
      if (!world.sent.length || timeouts < advanced) return;
      if (advanced < 2) {
        advanced++;
        world.clock.t += 61_000;
      } else if (!answered) {
        answered = true;
        void approve(world, id, 'ann');
      }
    };
  }

  it('on_timeout stuck: the run ends stuck after human_timeout, "no answer after …"', async () => {
    const { world, start } = setup();
    const id = await start('config{ human_timeout = 3600 }\nreturn pause("Ship?").continue');
    const outcome = await waitDrive(world, id, (t) => t === 3 && (world.clock.t += 3601_000));
    expect(outcome).toEqual({ status: 'stuck', reason: 'no answer after 1h' });
    expect((await events(world, id, 'timed_out'))[0]).toMatchObject({
      key: '1',
      actor: 'system:timer',
      data: { on_timeout: 'stuck', after: '1h' },
    });
  });

  it("a timeout waits while a person is in the agent's session (shop continue), and fires once they leave", async () => {
    const { world, start } = setup({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
    const id = await start('config{ human_timeout = 60 }\nreturn run("coder").status');
    const person = { token: 'p1', by: 'ann', host: world.ports.self.host, pid: process.pid, pidStart: 'x' };
    let held = false;
    const outcome = await waitDrive(world, id, (t) => {
      if (t === 3) void world.store.holdSession(id, '1', person, { ask: 1, staleHold: null }).then(() => (held = true));
      if (t === 5 && held) world.clock.t += 61_000;
      if (t === 20) void world.store.releaseSession(id, '1', 'p1');
    });
    expect(outcome).toEqual({ status: 'stuck', reason: 'no answer after 1m' });
    // It fired only after the session was let go.
    const trail = (await world.store.listEvents(id)).map((e) => e.type);
    expect(trail).toContain('session_closed');
    expect(trail.indexOf('timed_out')).toBeGreaterThan(trail.indexOf('session_closed'));
  });

  it("on_timeout default: a pause's own deadline answers with its decisions' defaults, as system:timeout", async () => {
    const { world, start } = setup();
    const id = await start(`local d = pause{ message = "Launch?", deadline = 600, on_timeout = "default",
        decisions = { { id = "go", type = "approval", prompt = "Go?", default = true }, { id = "when", type = "choice", prompt = "When?", options = { "now", "monday" }, default = "monday" } } }
      return { d.continue, d.answers.when, d.responder }`);
    const outcome = await waitDrive(world, id, (t) => t === 3 && (world.clock.t += 601_000));
    expect(outcome).toEqual({ status: 'completed', result: [true, 'monday', 'system:timeout'] });
  });

  it('on_timeout default without defaults ends the run stuck, saying why', async () => {
    const { world, start } = setup();
    const id = await start('config{ human_timeout = 60, on_timeout = "default" }\nreturn pause("Ship?").continue');
    expect(await waitDrive(world, id, (t) => t === 3 && (world.clock.t += 61_000))).toEqual({
      status: 'stuck',
      reason: 'no answer after 1m, and a pause without decisions has no default',
    });
  });

  it('notify_again tells people again every human_timeout and keeps waiting; an answer ends it', async () => {
    const { world, start } = setup();
    const id = await start(
      'config{ human_timeout = 60, on_timeout = "notify_again", notify = { "desktop" } }\nreturn pause("Ship?").continue',
    );
    const outcome = await waitDrive(world, id, twoTimeoutsThenAnswer(world, id));
    expect(outcome).toEqual({ status: 'completed', result: true });
    expect(world.sent.map((s) => s.notice.event)).toEqual(['waiting', 'timeout', 'timeout']);
  });

  it('with a public URL recorded, every notice (the ask, each timeout) carries a fresh answer link to that ask', async () => {
    const { world, start } = setup();
    await setPublicUrl(world.store, 'https://shop.example.com');
    const id = await start(
      'config{ human_timeout = 60, on_timeout = "notify_again", notify = { "desktop" } }\nreturn pause("Ship?").continue',
    );
    const outcome = await waitDrive(world, id, twoTimeoutsThenAnswer(world, id));
    expect(outcome).toEqual({ status: 'completed', result: true });
    expect(world.sent.map((s) => s.notice.event)).toEqual(['waiting', 'timeout', 'timeout']);
    const links = await Promise.all(
      world.sent.map((s) =>
        verifyAnswerLink(
          world.store,
          world.ports.clock,
          s.notice.answer_url!.replace('https://shop.example.com/a/', ''),
        ),
      ),
    );
    expect(links.map((l) => [l.runId, l.key, l.ask])).toEqual([
      [id, '1', 1],
      [id, '1', 1],
      [id, '1', 1],
    ]);
    // Each made when its notice went out: later notices expire later.
    expect(links[1].expiresAt - links[0].expiresAt).toBe(61_000);
    expect(links[2].expiresAt - links[1].expiresAt).toBe(61_000);
    expect(links[2].expiresAt).toBe(world.clock.t + ANSWER_LINK_TTL_MS);
  });

  it('reminder, then escalation, then a reminder to the escalation target, each in the trail', async () => {
    const { world, start } = setup();
    const id =
      await start(`config{ remind_after = 600, escalate_after = 1800, escalate_to = { "command:page-lead" }, notify = { "desktop" } }
      return pause("Ship?").continue`);
    const outcome = await waitDrive(world, id, (t) => {
      if (t === 3 || t === 9 || t === 15) world.clock.t += 900_000;
      if (t === 21) void approve(world, id, 'lead');
    });
    expect(outcome).toEqual({ status: 'completed', result: true });
    expect(world.sent.map((s) => [s.notice.event, s.targets])).toEqual([
      ['waiting', ['desktop']],
      ['reminder', ['desktop']],
      ['escalation', ['command:page-lead']],
      ['reminder', ['command:page-lead']],
    ]);
    expect(
      (await world.store.listEvents(id))
        .filter((e) => ['reminded', 'escalated'].includes(e.type))
        .map((e) => [e.type, e.data!.after]),
    ).toEqual([
      ['reminded', '10m'],
      ['escalated', '30m'],
      ['reminded', '40m'],
    ]);
  });
});
