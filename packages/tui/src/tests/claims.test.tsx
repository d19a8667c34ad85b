import { claimAsk } from '@shop/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

const status = (lines: string[]) => lines.slice(-3, -1).join(' ').trim();

describe('the claim key (m)', () => {
  it('claims the selected ask in the inbox, shows the claimant, and lets go on a second press', async () => {
    w = testWorld();
    const id = await w.run('config{ claim_timeout = 1800 }\nreturn pause("Deploy?").continue');
    const t = renderTui(w, { rows: 10 });
    await t.ready();
    await t.press('i');
    await t.until(() => expect(t.lines()[0]).toBe('Inbox — 1 pending ask, oldest first'));
    // The screen reads again what changed since it last looked: a change comes later on the clock.
    w.later(1);
    await t.press('m');
    await t.until(() =>
      expect(status(t.lines())).toBe(
        `ask ${id}.1 claimed by ann for 30m 0s: reminders and escalation wait (m again lets go)`,
      ),
    );
    await t.until(() => expect(t.lines()[2]).toMatch(/^› \d+ +flow +1 +pause +checkpoint +Deploy\? +ann +1s$/));
    expect((await w.store.getExecution(id, '1'))!.claim).toMatchObject({ by: 'ann', channel: 'tui' });
    w.later(1);
    await t.press('m');
    await t.until(() => expect(status(t.lines())).toBe(`let go of ask ${id}.1: its reminders and escalation go on`));
    await t.until(() => expect(t.lines()[2]).not.toMatch(/ ann /));
    expect((await w.store.getExecution(id, '1'))!.claim).toBeNull();
  });

  it('a claim that ages out leaves the screen without anything else changing', async () => {
    w = testWorld();
    const id = await w.run('config{ claim_timeout = 600 }\nreturn pause("Deploy?").continue');
    await claimAsk(w.world.ports, { handle: `${id}.1`, by: 'bob', channel: 'web' });
    const t = renderTui(w, { rows: 10 });
    await t.ready();
    await t.press('i');
    await t.until(() => expect(t.lines()[2]).toMatch(/ bob +0s$/));
    w.later(600);
    await t.until(() => expect(t.lines()[2]).toMatch(/Deploy\? +10m 0s$/));
  });

  it("someone else's claim is shown in the details and refused naming them", async () => {
    w = testWorld();
    const id = await w.run('return pause("Deploy?").continue');
    await claimAsk(w.world.ports, { handle: `${id}.1`, by: 'bob', channel: 'web' });
    w.later(120);
    const t = renderTui(w, { rows: 26 });
    await t.ready();
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()).toContain('#1 pause — Deploy? · claimed by bob (web) 2m ago'));
    await t.press('m');
    await t.until(() =>
      expect(status(t.lines())).toMatch(
        new RegExp(`^✗ ${id}\\.1 is claimed by bob \\(web\\) since .+ \\(until .+, unless released\\)$`),
      ),
    );
    expect((await w.store.getExecution(id, '1'))!.claim).toMatchObject({ by: 'bob' });
  });
});
