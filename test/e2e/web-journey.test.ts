import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, trail, until, type Project } from './harness.js';
import { addPerson, startServe } from './serve-harness.js';

/**
 * A person's journey through `shop serve` in Debian's Chromium: signing in with a link, asks
 * appearing live, and every way of answering — approve, structured decisions (a refused value
 * first), reject with feedback. (An answer link on a phone: web-answer-link.test.ts.)
 */
const GATE = 'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n';
const RELEASE = `function workflow(prompt)
  local r = pause{message = "Release " .. prompt .. "?", decisions = {
    { id = "go", type = "approval", prompt = "Go ahead?" },
    { id = "env", type = "choice", prompt = "Where to?", options = { "staging", "prod" } },
    { id = "pct", type = "number", prompt = "Rollout %", constraints = { min = 1, max = 100 } },
    { id = "checks", type = "multi_choice", prompt = "Checks first", options = { "lint", "unit", "e2e" }, constraints = { min = 1 } },
    { id = "ticket", type = "text", prompt = "Ticket", constraints = { pattern = "^[A-Z]+-\\\\d+$" } },
    { id = "day", type = "date", prompt = "Launch day", required = false },
  }}
  return { answers = r.answers, comments = r.comments, responder = r.responder }
end
`;
const MIGRATE = 'function workflow(p)\n  local r = run("coder", "add the users table")\n  return r.status .. "|" .. (r.summary or "")\nend\n';

/** The open ask whose question holds `text`, on the page as it is now. */
const askOn = (page: Page, text: string) => page.locator('article.ask', { hasText: text });

async function signIn(page: Page, base: string, p: Project, name: string) {
  await page.goto(`${base}/login/${addPerson(p, name)}`);
  await page.waitForURL(`${base}/`);
  await expect.poll(() => page.locator('header.top').innerText()).toContain(`signed in as ${name}`);
}

describe('the web inbox in a real browser', () => {
  it('sign in, see a run ask live, approve it; decide a structured pause (a refused value first); reject an agent with feedback', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    p.write('workflows/release.lua', RELEASE);
    p.write('workflows/migrate.lua', MIGRATE);
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Approve the migration?', awaiting: 'approval' }, { status: 'DONE', summary: 'reworked' }] } });
    const s = await startServe(p);
    const page = await newPage();
    await signIn(page, s.base, p, 'ann');
    await expect.poll(() => page.locator('main#live').innerText()).toContain('Nothing is waiting for a person');
    await screenshot(page, 'journey-1-empty-inbox');

    // A run that starts after the page is open shows up by itself: the page is never reloaded.
    await page.evaluate('window.keptAcrossUpdates = true');
    const gate = await p.shopAsync(['run', 'gate', 'the login fix']);
    expect(gate.code).toBe(3);
    const gateId = runId(gate.stdout);
    await askOn(page, 'Ship the login fix?').waitFor();
    expect(await page.evaluate('window.keptAcrossUpdates')).toBe(true);
    expect(await page.title()).toBe('Inbox (1) · shop');
    await screenshot(page, 'journey-2-ask-arrived-live');

    await askOn(page, 'Ship the login fix?').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Approved ${gateId}.1`);
    await until('the approved run to complete', () => p.status(gateId).status === 'completed');
    expect(p.status(gateId).result).toEqual({ shipped: true });
    expect(trail(p, gateId).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'ann', channel: 'web', data: { verdict: 'approved' } }]);

    // A structured pause: every decision type; the page refuses an out-of-range number and a bad ticket before anything is sent.
    const release = await p.shopAsync(['run', 'release', '2.4']);
    expect(release.code).toBe(3);
    const releaseId = runId(release.stdout);
    const form = askOn(page, 'Release 2.4?').locator('form.v-decide');
    await form.waitFor();
    await form.getByLabel('Yes').check();
    await form.getByLabel('prod').check();
    await form.locator('input[name="d.pct"]').fill('500');
    await form.getByLabel('lint').check();
    await form.getByLabel('unit').check();
    await form.locator('input[name="d.ticket"]').fill('not a ticket');
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    const problems = form.locator('.problems');
    await expect.poll(() => problems.isVisible()).toBe(true);
    expect((await problems.innerText()).split('\n')).toEqual(['Not sent — please fix:', 'Rollout %: must be ≤ 100', 'Ticket: must match /^[A-Z]+-\\d+$/']);
    await screenshot(page, 'journey-3-decision-refused');
    expect(p.status(releaseId).status).toBe('waiting_human');
    expect(trail(p, releaseId).filter((e) => e.type === 'human_answered')).toEqual([]);

    await form.locator('input[name="d.pct"]').fill('25');
    await form.locator('input[name="d.ticket"]').fill('OPS-42');
    await form.locator('details.comment', { hasText: 'Add a comment' }).first().locator('summary').click();
    await form.locator('input[name="c.go"]').fill('finance agreed');
    await form.locator('input[name="d.day"]').fill('2026-12-01');
    // Step out of the form: a live update may swap the page now, and must keep what was typed and opened.
    await page.locator('h1').click();
    const docs = await p.shopAsync(['run', 'gate', 'the docs']);
    expect(docs.code).toBe(3);
    const docsId = runId(docs.stdout);
    await askOn(page, 'Ship the docs?').waitFor();
    expect(await form.locator('input[name="d.pct"]').inputValue()).toBe('25');
    expect(await form.locator('input[name="d.ticket"]').inputValue()).toBe('OPS-42');
    expect(await form.getByLabel('prod').isChecked()).toBe(true);
    expect(await form.getByLabel('unit').isChecked()).toBe(true);
    expect(await form.locator('input[name="c.go"]').isVisible()).toBe(true);
    expect(await form.locator('input[name="c.go"]').inputValue()).toBe('finance agreed');
    await form.getByRole('button', { name: 'Submit decisions' }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Decided ${releaseId}.1`);
    await until('the decided run to complete', () => p.status(releaseId).status === 'completed');
    expect(p.status(releaseId).result).toEqual({
      answers: { go: true, env: 'prod', pct: 25, checks: ['lint', 'unit'], ticket: 'OPS-42', day: '2026-12-01' },
      comments: { go: 'finance agreed' },
      responder: 'ann',
    });

    // An agent asks for approval: reject it with feedback, which goes back into its session.
    const migrate = await p.shopAsync(['run', 'migrate']);
    expect(migrate.code).toBe(3);
    const migrateId = runId(migrate.stdout);
    const ask = askOn(page, 'Approve the migration?');
    await ask.waitFor();
    await ask.locator('details.v-reject summary').click();
    const reject = ask.locator('form.v-reject');
    // Feedback is required here (a rejection sends the agent back to work): the browser holds an empty one back.
    await reject.getByRole('button', { name: 'Reject' }).click();
    expect(await reject.locator('textarea[name=message]:invalid').count()).toBe(1);
    expect(p.status(migrateId).status).toBe('waiting_human');
    await reject.locator('textarea[name=message]').fill('add a down migration');
    await screenshot(page, 'journey-4-reject-with-feedback');
    await reject.getByRole('button', { name: 'Reject' }).click();
    await until('the rejected run to complete', () => p.status(migrateId).status === 'completed');
    expect(p.status(migrateId).result).toBe('DONE|reworked');
    const coder = p.invocations().filter((i) => i.agent === 'coder' && i.mode === 'print');
    expect(coder[1]).toMatchObject({ resumed: true });
    expect(coder[1].prompt).toContain('add a down migration');
    expect(trail(p, migrateId).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'ann', channel: 'web', data: { verdict: 'rejected', message: 'add a down migration' } }]);

    // A plain pause rejected (it stops there, the workflow reads continue = false).
    const docsAsk = askOn(page, 'Ship the docs?');
    await docsAsk.locator('details.v-reject summary').click();
    await docsAsk.locator('form.v-reject textarea[name=message]').fill('not this week');
    await docsAsk.getByRole('button', { name: 'Reject (stop it)' }).click();
    await until('the rejected pause to complete', () => p.status(docsId).status === 'completed');
    expect(p.status(docsId).result).toEqual({ shipped: false });

    // Nothing waits now; the run page draws the structured run's timeline.
    await expect.poll(() => page.locator('main#live').innerText()).toContain('Nothing is waiting for a person');
    await page.goto(`${s.base}/runs/${releaseId}`);
    expect(await page.locator('svg.timeline g.bar').count()).toBe(1);
    expect(await page.locator('svg.timeline rect.wait').count()).toBe(1);
    await screenshot(page, 'journey-5-run-page');
    await page.goto(`${s.base}/runs?status=completed`);
    expect(await page.locator('li.run-row').count()).toBe(4);
    await screenshot(page, 'journey-6-runs');
    expect(dialogs).toEqual([]);
  }, 120_000);

  it('on a 375×812 phone: the inbox fits the screen and an agent question is answered with text', async () => {
    const p = makeProject();
    p.write('workflows/migrate.lua', MIGRATE);
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: 'Which database should the users table go in?' }, { status: 'DONE', summary: 'used postgres' }] } });
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
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'bo', channel: 'web', data: { verdict: 'answer', message: 'postgres, the main cluster' } }]);
    await page.goto(`${s.base}/runs/${id}`);
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    await screenshot(page, 'journey-8-phone-run');
    expect(dialogs).toEqual([]);
  }, 60_000);
});
