import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRun, driveRun } from '../engine/drive-run.js';
import { fireDueTimers } from '../engine/fire-timers.js';
import { Ownership, storeLiveness } from '../engine/ownership.js';
import { scriptedWorld, type ScriptedWorld } from '../engine/testing/scripted-ports.js';
import { ConflictError, NotFoundError, UsageError } from '../errors.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { claimAsk, releaseClaim } from './claim-ask.js';
import { answerAsk } from './answer-ask.js';
import { inboxJson, runDetailJson } from './queries.js';
import { ClaimJsonSchema, InboxRowJsonSchema } from './shapes.js';
import { tempDir } from '../testing/temp-dir.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

const FLOW = '/project/workflows/flow.lua';
const MIN = 60_000;

/**
 * A scripted world whose store runs on the test's clock, so a claim ages out as the clock is
 * moved on; `start` begins a run of the workflow body and drives it until it waits.
 */
async function waitingRun(body: string) {
  const dir = tempDir('shop-claim-op-');
  const world = scriptedWorld(dir);
  world.store.close();
  world.store = world.ports.store = openSqliteStore(join(dir, 'shop.db'), () => world.clock.t);
  worlds.push(world);
  world.workflows.set(FLOW, `function workflow(prompt)\n${body}\nend\n`);
  const { run, owner } = await createRun(world.ports, {
    spec: 'flow',
    workflowPath: FLOW,
    prompt: 'the task',
    workspace: dir,
    actor: 'tester',
  });
  await owner.release(false);
  expect(await driveRun(world.ports, run.id, { wait: false })).toMatchObject({ status: 'waiting_human' });
  /** The run's owner fires its due timers now, as a waiting driver or a worker does on its next look. */
  const fire = async () => {
    const current = (await world.store.getRun(run.id))!;
    const own = await Ownership.claim(world.ports, current);
    try {
      return await fireDueTimers(world.ports, current, own.token);
    } finally {
      await own.release(false);
    }
  };
  const sent = () => world.sent.map((s) => s.notice.event).filter((e) => e !== 'waiting');
  return { world, id: run.id, fire, sent };
}

const SHIP = `config{ remind_after = 600, escalate_after = 1800, escalate_to = { "command:page-lead" }, notify = { "desktop" }, claim_timeout = 1200 }
  return pause("Ship?").continue`;

describe('claimAsk / releaseClaim', () => {
  it('claims the ask a handle names for config claim_timeout; inbox and status --json show who', async () => {
    const { world, id } = await waitingRun(SHIP);
    const t0 = world.clock.t;
    const claim = ClaimJsonSchema.parse(await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'tui' }));
    const by = {
      by: 'ann',
      channel: 'tui',
      since: new Date(t0).toISOString(),
      until: new Date(t0 + 20 * MIN).toISOString(),
    };
    expect(claim).toEqual({
      handle: `${id}.1`,
      run: id,
      key: '1',
      ask: 1,
      question: 'Ship?',
      claimed_by: by,
      released: null,
    });
    const [row] = await inboxJson(world.store, storeLiveness(world.ports));
    expect(InboxRowJsonSchema.parse(row).claimed_by).toEqual(by);
    const detail = await runDetailJson(world.store, storeLiveness(world.ports), id, {});
    expect(detail.pending!.claimed_by).toEqual(by);
    expect(detail.asks[0].claimed_by).toEqual(by);
    // A bare run id waiting on one ask names it too.
    expect((await claimAsk(world.ports, { handle: String(id), by: 'ann', channel: 'cli' })).claimed_by).toMatchObject({
      by: 'ann',
      channel: 'cli',
    });
  });

  it("refuses someone else's claim naming them, a bad handle, an unknown ask, and an answered ask naming who answered", async () => {
    const { world, id } = await waitingRun(SHIP);
    await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'web' });
    await expect(claimAsk(world.ports, { handle: `${id}.1`, by: 'bob', channel: 'cli' })).rejects.toThrow(
      /is claimed by ann \(web\) since /,
    );
    await expect(claimAsk(world.ports, { handle: 'x.1', by: 'bob', channel: 'cli' })).rejects.toThrow(UsageError);
    await expect(claimAsk(world.ports, { handle: `${id}.9`, by: 'bob', channel: 'cli' })).rejects.toThrow(
      NotFoundError,
    );
    await expect(claimAsk(world.ports, { handle: `${id}.1`, by: 'bob\u001b[2J', channel: 'cli' })).rejects.toThrow(
      /control character/,
    );
    await answerAsk(world.ports, {
      handle: `${id}.1`,
      input: { verdict: 'approved' },
      channel: 'cli',
      responder: 'carol',
    });
    const refused = claimAsk(world.ports, { handle: `${id}.1`, by: 'bob', channel: 'cli' });
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(claimAsk(world.ports, { handle: `${id}.1`, by: 'bob', channel: 'cli' })).rejects.toThrow(
      /already answered approved by carol \(cli\)/,
    );
  });

  it("releases one's own claim, someone else's only with force; nothing to release is no error", async () => {
    const { world, id } = await waitingRun(SHIP);
    await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'cli' });
    await expect(releaseClaim(world.ports, { handle: `${id}.1`, by: 'bob' })).rejects.toThrow(/claimed by ann \(cli\)/);
    const forced = await releaseClaim(world.ports, { handle: `${id}.1`, by: 'bob', force: true, channel: 'web' });
    expect(forced).toMatchObject({ claimed_by: null, released: { by: 'ann', channel: 'cli' } });
    expect((await inboxJson(world.store, storeLiveness(world.ports)))[0].claimed_by).toBeNull();
    expect((await releaseClaim(world.ports, { handle: `${id}.1`, by: 'bob' })).released).toBeNull();
    const [event] = (await world.store.listEvents(id)).filter((e) => e.type === 'claim_released');
    expect(event).toMatchObject({ actor: 'bob', channel: 'web', data: { claimed_by: 'ann' } });
  });

  it("takes someone else's claim over when asked to (a page's Take over), still refusing an answered ask", async () => {
    const { world, id } = await waitingRun(SHIP);
    await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'cli' });
    const taken = await claimAsk(world.ports, { handle: `${id}.1`, by: 'bob', channel: 'web', takeOver: true });
    expect(taken.claimed_by).toMatchObject({ by: 'bob', channel: 'web' });
    const [event] = (await world.store.listEvents(id)).filter((e) => e.type === 'claim_released');
    expect(event).toMatchObject({ actor: 'bob', channel: 'web', data: { claimed_by: 'ann' } });
    await answerAsk(world.ports, {
      handle: `${id}.1`,
      input: { verdict: 'approved' },
      responder: 'carol',
      channel: 'cli',
    });
    await expect(
      claimAsk(world.ports, { handle: `${id}.1`, by: 'dan', channel: 'web', takeOver: true }),
    ).rejects.toThrow(/already answered approved by carol/);
  });

  it('a claim lasts an hour when config{} sets no claim_timeout', async () => {
    const { world, id } = await waitingRun('return pause("Ship?").continue');
    const claim = await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'cli' });
    expect(Date.parse(claim.claimed_by!.until) - Date.parse(claim.claimed_by!.since)).toBe(3_600_000);
    world.clock.t += 3_600_000;
    expect((await inboxJson(world.store, storeLiveness(world.ports)))[0].claimed_by).toBeNull();
  });
});

describe('reminders and escalation of a claimed ask (fast-forwarded clock)', () => {
  it('are put off while the claim lasts and come once it ages out', async () => {
    const { world, id, fire, sent } = await waitingRun(SHIP);
    await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'cli' });
    world.clock.t += 11 * MIN;
    expect(await fire()).toEqual({ fired: 0, ended: false });
    expect(sent()).toEqual([]);
    world.clock.t += 9 * MIN; // 20 minutes: the claim has aged out
    expect((await fire()).fired).toBe(1);
    expect(sent()).toEqual(['reminder']);
    world.clock.t += 10 * MIN;
    await fire();
    expect(sent()).toEqual(['reminder', 'escalation']);
    const trail = (await world.store.listEvents(id))
      .map((e) => e.type)
      .filter((t) => ['claimed', 'timer_put_off', 'reminded', 'escalated'].includes(t));
    expect(trail).toEqual(['claimed', 'timer_put_off', 'reminded', 'escalated']);
  });

  it('come again as soon as the claim is released; the timeout is not put off by a claim', async () => {
    const { world, id, fire, sent } =
      await waitingRun(`config{ remind_after = 600, human_timeout = 1500, notify = { "desktop" } }
      return pause("Ship?").continue`);
    await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'cli' });
    world.clock.t += 11 * MIN;
    await fire();
    expect(sent()).toEqual([]);
    await releaseClaim(world.ports, { handle: `${id}.1`, by: 'ann' });
    await fire();
    expect(sent()).toEqual(['reminder']);
    await claimAsk(world.ports, { handle: `${id}.1`, by: 'ann', channel: 'cli' });
    world.clock.t += 15 * MIN;
    expect(await fire()).toEqual({ fired: 1, ended: true });
    expect((await world.store.getRun(id))!.reason).toBe('no answer after 25m');
  });
});
