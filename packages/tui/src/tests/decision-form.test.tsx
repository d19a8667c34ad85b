import { afterEach, describe, expect, it } from 'vitest';
import { KEYS, renderTui } from '../test-utils/render.js';
import { testWorld, type TestWorld } from '../test-utils/world.js';

let w: TestWorld;
afterEach(() => w?.dispose());

const CAMPAIGN = `local d = pause{ message = "Launch the campaign?", decisions = {
    { id = "budget", type = "approval", prompt = "Approve the budget?" },
    { id = "when", type = "choice", prompt = "Launch when?", options = { "now", "monday" }, default = "monday" },
    { id = "cap", type = "number", prompt = "Daily cap (USD)", constraints = { min = 10, max = 500 } },
    { id = "tag", type = "text", prompt = "Campaign tag", required = false, constraints = { pattern = "^[a-z-]+$" } },
  } }
  return d.answers.cap`;

describe("a structured pause's decisions form", () => {
  it('shows a broken rule inline and records nothing; a valid answer is recorded and the run resumes', async () => {
    w = testWorld();
    const id = await w.run(CAMPAIGN);
    const t = renderTui(w, { rows: 16, onResume: (runId) => void w.drive(runId) });
    await t.ready();
    await t.press('c');
    await t.until(() => expect(t.lines()[0]).toBe(`Decide run ${id} call 1 — Launch the campaign?`));
    expect(t.lines().slice(0, 7)).toEqual([
      `Decide run ${id} call 1 — Launch the campaign?`,
      '› Approve the budget?            — (y/n)',
      '  Launch when?                   monday                   now · monday',
      '  Daily cap (USD)',
      '  Campaign tag (optional)',
      '  Note (optional)',
      '[↑↓ Tab] field  [←→ space y/n] choose  [Enter] submit  [Esc] cancel',
    ]);
    await t.press('y', KEYS.down, KEYS.down, '5');
    await t.until(() =>
      expect(t.lines().slice(3, 5)).toEqual(['› Daily cap (USD)                5▏', '    ✗ must be ≥ 10']),
    );
    await t.press(KEYS.enter);
    // Keys are taken in order: once the next field shows what was typed after Enter, Enter was taken (and sent nothing).
    await t.press(KEYS.tab, 'B', 'A', 'D');
    await t.until(() => expect(t.lines()).toContain('    ✗ must match /^[a-z-]+$/'));
    expect(t.lines()[0]).toBe(`Decide run ${id} call 1 — Launch the campaign?`);
    expect(await w.store.listAnswers(id)).toEqual([]);
    await t.press(KEYS.backspace, KEYS.backspace, KEYS.backspace, 'x', KEYS.up, '0', KEYS.up, KEYS.left, KEYS.enter);
    await t.until(() =>
      expect(t.lines().slice(0, 5)).toEqual([
        `Send this answer to ask ${id}.1 — pause asks: Launch the campaign?`,
        'budget: true',
        'when: "now"',
        'cap: 50',
        'tag: "x"',
      ]),
    );
    expect(await w.store.listAnswers(id)).toEqual([]);
    await t.confirm();
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 1 run'));
    const [answer] = await w.store.listAnswers(id);
    expect(answer).toMatchObject({
      channel: 'tui',
      responder: 'ann',
      decisions: { budget: { value: true }, when: { value: 'now' }, cap: { value: 50 }, tag: { value: 'x' } },
    });
    expect(t.resumed).toEqual([id]);
    await t.until(() => expect(t.lines()[2]).toMatch(new RegExp(`^› ${id} +flow +✓ completed +- +50 `)));
    // The status wraps over two lines (where depends on the width): joined, the wrap's spaces are one.
    expect(t.lines().slice(-3, -1).join(' ').replace(/ {2,}/g, ' ')).toBe(
      `run ${id} call 1 (${id}.1): answered decisions {"budget":true,"when":"now","cap":50,"tag":"x"} by ann; run ${id} resumes in the background (log: .shop/runs/${id}/tui-resume.log)`,
    );
  });

  it('A on a structured pause opens the form with every approval said yes; Esc leaves it with nothing recorded', async () => {
    w = testWorld();
    const id = await w.run(CAMPAIGN);
    const t = renderTui(w, { rows: 16 });
    await t.ready();
    await t.press('A');
    await t.until(() => expect(t.lines()[1]).toBe('› Approve the budget?            yes'));
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()).toContain('    ✗ required (number: Daily cap (USD))'));
    await t.press(KEYS.esc);
    await t.until(() => expect(t.lines()[0]).toBe('Shop runs — 1 run · 1 waiting'));
    expect(await w.store.listAnswers(id)).toEqual([]);
  });

  it('c on a plain pause asks continue or stop, with a reason; a stop ends the run', async () => {
    w = testWorld();
    const id = await w.run(
      'local r = pause("Deploy to production?") if not r.continue then return stuck(r.reason) end',
    );
    const t = renderTui(w, { rows: 12, onResume: (runId) => void w.drive(runId) });
    await t.ready();
    await t.press('c');
    await t.until(() => expect(t.lines()[1]).toBe('› Continue?                      — (y/n)'));
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines()[2]).toBe('    ✗ required'));
    await t.press('n', KEYS.tab, ...'too risky');
    await t.press(KEYS.enter);
    await t.until(() => expect(t.lines().slice(1, 3)).toEqual(['Stop', 'Note: too risky']));
    await t.confirm();
    await t.until(() => expect(t.lines()[2]).toMatch(new RegExp(`^› ${id} +flow +■ stuck +- +too risky`)));
    expect(await w.store.listAnswers(id)).toMatchObject([
      { verdict: 'rejected', message: 'too risky', channel: 'tui' },
    ]);
  });
});
