import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, trail, until } from './harness.js';
import { startServe } from './serve-harness.js';
import { askOn, GATE, MIGRATE, RELEASE, signIn } from './web-pages.js';

/** The web inbox on a 375×812 phone, and with JavaScript off (plain form posts), in Debian's Chromium. */
describe('the web inbox on a phone and without JavaScript', () => {
  it('on a 375×812 phone: the inbox fits the screen and an agent question is answered with text', async () => {
    const p = makeProject();
    p.write('workflows/migrate.lua', MIGRATE);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Which database should the users table go in?' },
          { status: 'DONE', summary: 'used postgres' },
        ],
      },
    });
    const run = await p.shopAsync(['run', 'migrate']);
    expect(run.code).toBe(3);
    const id = runId(run.stdout);
    const s = await startServe(p);
    const page = await newPage({ phone: true });
    await page.setViewportSize({ width: 375, height: 812 });
    await signIn(page, s.base, p, 'bo');
    const ask = askOn(page, 'Which database should the users table go in?');
    await ask.waitFor();
    // Nothing wider than the screen: no sideways scrolling.
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    // Big tap targets: the answer button is at least 44 px high and spans the card.
    const button = await ask.getByRole('button', { name: 'Send answer' }).boundingBox();
    expect(button!.height).toBeGreaterThanOrEqual(44);
    expect(button!.width).toBeGreaterThan(250);
    // Words are required for an agent's question: an empty answer is held back by the browser.
    await ask.getByRole('button', { name: 'Send answer' }).click();
    expect(await ask.locator('textarea[name=message]:invalid').count()).toBe(1);
    await ask.getByLabel('Your answer').fill('postgres, the main cluster');
    await screenshot(page, 'journey-7-phone-answer');
    await ask.getByRole('button', { name: 'Send answer' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Answered ${id}.1`);
    await until('the answered run to complete', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toBe('DONE|used postgres');
    const coder = p.invocations().filter((i) => i.agent === 'coder' && i.mode === 'print');
    expect(coder[1].prompt).toContain('postgres, the main cluster');
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([
      { actor: 'bo', channel: 'web', data: { verdict: 'answer', message: 'postgres, the main cluster' } },
    ]);
    await page.goto(`${s.base}/runs/${id}`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await screenshot(page, 'journey-8-phone-run');
    expect(dialogs).toEqual([]);
  }, 60_000);

  it('with JavaScript off: sign in, decide a structured pause and approve a plain one by plain form posts', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    p.write('workflows/release.lua', RELEASE);
    const gate = await p.shopAsync(['run', 'gate', 'the fix']);
    const release = await p.shopAsync(['run', 'release', '3.0']);
    expect([gate.code, release.code]).toEqual([3, 3]);
    const s = await startServe(p);
    const page = await newPage({ noScript: true });
    await signIn(page, s.base, p, 'cy');
    const form = askOn(page, 'Release 3.0?').locator('form.v-decide');
    await form.getByLabel('No').check();
    await form.getByLabel('staging').check();
    await form.getByLabel('e2e').check();
    await form.locator('input[name="d.ticket"]').fill('REL-7');
    // Without the script the browser itself holds a refused value back (HTML validation attributes).
    await form.locator('input[name="d.pct"]').fill('500');
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    expect(await form.locator('input[name="d.pct"]:invalid').count()).toBe(1);
    expect(p.status(runId(release.stdout)).status).toBe('waiting_human');
    await form.locator('input[name="d.pct"]').fill('5');
    // Folded parts open without JavaScript too (details/summary).
    await form.locator('details.comment').nth(2).locator('summary').click();
    await form.locator('input[name="c.pct"]').fill('slowly');
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Decided ${runId(release.stdout)}.1`);
    await askOn(page, 'Ship the fix?').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Approved ${runId(gate.stdout)}.1`);
    await screenshot(page, 'journey-13-no-javascript');
    await until(
      'both runs to complete',
      () =>
        p.status(runId(gate.stdout)).status === 'completed' && p.status(runId(release.stdout)).status === 'completed',
    );
    expect(p.status(runId(release.stdout)).result).toEqual({
      answers: { go: false, env: 'staging', pct: 5, checks: ['e2e'], ticket: 'REL-7' },
      comments: { pct: 'slowly' },
      responder: 'cy',
    });
    expect(p.status(runId(gate.stdout)).result).toEqual({ shipped: true });
  }, 60_000);
});
