import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, trail, until } from './harness.js';
import { startServe } from './serve-harness.js';
import { askOn, signIn } from './web-pages.js';

/**
 * The README's own campaign pause, whose tag must match ^[a-z-]+$: Chromium compiles a pattern
 * attribute with the v flag, where [a-z-] is invalid, so the page let a bad tag through and the
 * server's refusal came back as a bare 400 page with everything typed gone.
 */
const CAMPAIGN = `function workflow(prompt)
  local d = pause{ message = "Launch the campaign?", decisions = {
    { id = "budget", type = "approval", prompt = "Approve the budget?" },
    { id = "when", type = "choice", prompt = "Launch when?", options = { "now", "monday" }, default = "monday" },
    { id = "cap", type = "number", prompt = "Daily cap (USD)", constraints = { min = 10, max = 500 } },
    { id = "tag", type = "text", prompt = "Campaign tag", required = false, constraints = { pattern = "^[a-z-]+$" } },
  } }
  return { answers = d.answers, cap_comment = d.comments.cap, message = d.message }
end
`;

describe('a decision with a pattern, in Chromium', () => {
  it('the page checks the pattern as the server does (JavaScript RegExp), before anything is sent', async () => {
    const p = makeProject();
    p.write('workflows/campaign.lua', CAMPAIGN);
    const id = runId(await p.shopAsync(['run', 'campaign']));
    const s = await startServe(p);
    const page = await newPage();
    const console: string[] = [];
    page.on('console', (m) => console.push(m.text()));
    await signIn(page, s.base, p, 'ann');
    const form = askOn(page, 'Launch the campaign?').locator('form.v-decide');
    await form.getByLabel('Yes').check();
    await form.locator('input[name="d.cap"]').fill('50');
    await form.locator('input[name="d.tag"]').fill('Spring Sale');
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    const problems = form.locator('.problems');
    await expect.poll(() => problems.isVisible()).toBe(true);
    expect((await problems.innerText()).split('\n')).toEqual([
      'Not sent — please fix:',
      'Campaign tag: must match /^[a-z-]+$/',
    ]);
    expect(await form.locator('input[name="d.tag"]:invalid').count()).toBe(1);
    await screenshot(page, 'pattern-1-refused-in-the-page');
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toEqual([]);
    // No pattern the browser would compile differently (or not at all) is in the page.
    expect(await form.locator('input[pattern]').count()).toBe(0);
    expect(console.filter((m) => /pattern/i.test(m))).toEqual([]);

    await form.locator('input[name="d.tag"]').fill('spring-sale');
    expect(await form.locator('input[name="d.tag"]:invalid').count()).toBe(0);
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Decided ${id}.1`);
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toEqual({ answers: { budget: true, when: 'monday', cap: 50, tag: 'spring-sale' } });
    expect(dialogs).toEqual([]);
  }, 60_000);

  it('with JavaScript off, the server refuses a bad tag by showing the form again with what was typed and why', async () => {
    const p = makeProject();
    p.write('workflows/campaign.lua', CAMPAIGN);
    const id = runId(await p.shopAsync(['run', 'campaign']));
    const s = await startServe(p);
    const page = await newPage({ noScript: true });
    await signIn(page, s.base, p, 'cy');
    let form = askOn(page, 'Launch the campaign?').locator('form.v-decide');
    await form.getByLabel('No', { exact: true }).check();
    await form.getByLabel('now', { exact: true }).check();
    await form.locator('input[name="d.cap"]').fill('20');
    await form.locator('details.comment').nth(2).locator('summary').click();
    await form.locator('input[name="c.cap"]').fill('start small');
    await form.locator('input[name="d.tag"]').fill('Spring Sale');
    await form.locator('textarea[name=message]').fill('see the plan');
    const [reply] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST', { timeout: 10_000 }),
      form.getByRole('button', { name: 'Submit decisions' }).click(),
    ]);
    expect(reply.status()).toBe(400);
    // The ask's own page, its form as it was posted.
    expect(await page.title()).toBe(`Answer · campaign ${id}.1 · shop`);
    form = page.locator('section.ask form.v-decide');
    await expect
      .poll(() => form.locator('.problems').innerText())
      .toBe('Not sent — please fix:\ninvalid answers, nothing recorded: tag: must match /^[a-z-]+$/');
    expect(await form.getByLabel('No', { exact: true }).isChecked()).toBe(true);
    expect(await form.getByLabel('now', { exact: true }).isChecked()).toBe(true);
    expect(await form.locator('input[name="d.cap"]').inputValue()).toBe('20');
    expect(await form.locator('input[name="c.cap"]').inputValue()).toBe('start small');
    expect(await form.locator('input[name="d.tag"]').inputValue()).toBe('Spring Sale');
    expect(await form.locator('textarea[name=message]').inputValue()).toBe('see the plan');
    await screenshot(page, 'pattern-2-refused-by-the-server');
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toEqual([]);

    await form.locator('input[name="d.tag"]').fill('spring-sale');
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Decided ${id}.1`);
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toEqual({
      answers: { budget: false, when: 'now', cap: 20, tag: 'spring-sale' },
      cap_comment: 'start small',
      message: 'see the plan',
    });
  }, 60_000);
});
