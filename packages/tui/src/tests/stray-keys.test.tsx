import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

const status = (lines: string[]) => lines.slice(-3, -1).join(' ').trim();

/** A run whose coder waits for a person, shown in the inbox. */
async function waitingInInbox() {
  w = testWorld({ coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database?' }] });
  const id = await w.run('run("coder")');
  const t = renderTui(w, { rows: 12 });
  await t.ready();
  await t.press('i');
  await t.until(() => expect(t.lines()[0]).toBe('Inbox — 1 pending ask, oldest first'));
  return { id, t };
}

/** Nothing happened to the run: still waiting, no answer, no stop. */
async function untouched(id: number) {
  expect((await w.store.getRun(id))!.status).toBe('waiting_human');
  expect(await w.store.listAnswers(id)).toEqual([]);
  expect((await w.store.listEvents(id)).map((e) => e.type)).not.toContain('stop_requested');
}

describe('stray typing never acts on a run', () => {
  it('"/password" and Enter typed into the inbox at once stop nothing: the stop waits for a y after a pause', async () => {
    const { id, t } = await waitingInInbox();
    t.stdin.write('/password\r');
    // The question came with the last key typed: every key has been taken by now, and only a y acts.
    await t.until(() => expect(t.lines()[0]).toBe(`Stop run ${id} (flow: the task)?`));
    await untouched(id);
    // Typing on, even long after: a key that is not y takes the question away, nothing done.
    w.later(5);
    await t.press('x');
    await t.until(() => expect(status(t.lines())).toBe(`run ${id} not stopped`));
    await untouched(id);
  });

  it('typed one key at a time, as a person types, it stops nothing either', async () => {
    const { id, t } = await waitingInInbox();
    await t.press(...'/password\ry');
    // The last key, y, has been taken (and ignored, saying so): nothing more is to come.
    await t.until(() => expect(t.lines().join('\n')).toContain('typed too soon after the question: ignored'));
    await untouched(id);
  });

  it('A with words and Enter answers nothing until y comes after a pause', async () => {
    const { id, t } = await waitingInInbox();
    t.stdin.write('Alright, so\r');
    await t.until(() => expect(t.lines()[0]).toBe(`Approve ask ${id}.1 — coder asks: Which database?`));
    t.stdin.write('yy');
    await t.until(() => expect(t.lines().join('\n')).toContain('typed too soon after the question: ignored'));
    await untouched(id);
    w.later(1);
    await t.press('y');
    await t.until(() =>
      expect(status(t.lines())).toMatch(new RegExp(`^run ${id} call 1 \\(${id}\\.1\\): answered approved by ann`)),
    );
    expect(await w.store.listAnswers(id)).toMatchObject([{ verdict: 'approved', message: 'lright, so' }]);
  });

  it('s with a reason, Enter, then y after a pause stops the run; Esc at the question stops nothing', async () => {
    const { id, t } = await waitingInInbox();
    await t.press('s', ...'not needed', KEYS.enter);
    await t.until(() => expect(t.lines()).toContain('Reason: not needed'));
    w.later(1);
    await t.press(KEYS.esc);
    await t.until(() => expect(status(t.lines())).toBe(`run ${id} not stopped`));
    await untouched(id);
    await t.press('s', ...'not needed', KEYS.enter);
    await t.until(() => expect(t.lines()).toContain('Reason: not needed'));
    w.later(1);
    await t.press('y');
    await t.until(() => expect(status(t.lines())).toBe(`run ${id} stopped: stuck — not needed`));
  });
});
