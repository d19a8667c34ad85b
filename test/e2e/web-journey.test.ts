import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, trail, until } from './harness.js';
import { startServe } from './serve-harness.js';
import { askOn, GATE, MIGRATE, RELEASE, signIn } from './web-pages.js';

/**
 * A person's journey through `shop serve` in Debian's Chromium: signing in with a link, asks
 * appearing live, and every way of answering — approve, structured decisions (a refused value
 * first), reject with feedback — and two people on one ask (a claim, first answer wins).
 * More: web-run-page.test.ts (a run's page), web-phone.test.ts (a phone, no JavaScript),
 * web-answer-link.test.ts (a webhook's answer link).
 */
describe('the web inbox in a real browser', () => {
  it('sign in, see a run ask live, approve it; decide a structured pause (a refused value first); reject an agent with feedback', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    p.write('workflows/release.lua', RELEASE);
    p.write('workflows/migrate.lua', MIGRATE);
    p.scenario({
      agents: {
        coder: [
          { status: 'NEEDS_HUMAN', reason: 'Approve the migration?', awaiting: 'approval' },
          { status: 'DONE', summary: 'reworked' },
        ],
      },
    });
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
    expect(trail(p, gateId).filter((e) => e.type === 'human_answered')).toMatchObject([
      { actor: 'ann', channel: 'web', data: { verdict: 'approved' } },
    ]);

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
    expect((await problems.innerText()).split('\n')).toEqual([
      'Not sent — please fix:',
      'Rollout %: must be ≤ 100',
      'Ticket: must match /^[A-Z]+-\\d+$/',
    ]);
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
    expect(trail(p, migrateId).filter((e) => e.type === 'human_answered')).toMatchObject([
      { actor: 'ann', channel: 'web', data: { verdict: 'rejected', message: 'add a down migration' } },
    ]);

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

  it('two people: one claims the ask (the other sees it), the first answer wins and the second is told who answered', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const run = await p.shopAsync(['run', 'gate', 'the api']);
    expect(run.code).toBe(3);
    const id = runId(run.stdout);
    const s = await startServe(p);
    const ann = await newPage();
    const bob = await newPage();
    await signIn(ann, s.base, p, 'ann');
    await signIn(bob, s.base, p, 'bob');
    await askOn(bob, 'Ship the api?').waitFor();

    await askOn(ann, 'Ship the api?').getByRole('button', { name: "Claim — I'm on it" }).click();
    await expect.poll(() => ann.locator('.flash.ok').innerText()).toContain(`You are on ${id}.1`);
    expect(await askOn(ann, 'Ship the api?').locator('.claimed.mine').innerText()).toMatch(/^claimed by ann/);
    await askOn(ann, 'Ship the api?').getByRole('button', { name: 'Release' }).waitFor();
    // Bob's open page learns of the claim by itself.
    await expect.poll(() => askOn(bob, 'Ship the api?').locator('.claimed').count(), { timeout: 10_000 }).toBe(1);
    expect(await askOn(bob, 'Ship the api?').locator('.claimed').innerText()).toMatch(/^claimed by ann/);
    expect(await askOn(bob, 'Ship the api?').getByRole('button', { name: 'Take over from ann' }).count()).toBe(1);
    await screenshot(bob, 'journey-9-claimed-by-ann');

    // Bob stays on the page he has (it is not refreshed while he types); Ann approves first.
    const bobAsk = askOn(bob, 'Ship the api?');
    await bobAsk.locator('details.v-reject summary').click();
    await bobAsk.locator('form.v-reject textarea[name=message]').fill('wait for the changelog');
    await askOn(ann, 'Ship the api?').getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => ann.locator('.flash.ok').innerText()).toContain(`Approved ${id}.1`);
    await bobAsk.getByRole('button', { name: 'Reject (stop it)' }).click();
    await expect.poll(() => bob.locator('main#live').innerText()).toMatch(/already answered approved by ann/);
    expect(await bob.locator('h1').innerText()).toBe('Someone was first 409');
    await screenshot(bob, 'journey-10-second-answer-refused');
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toEqual({ shipped: true });
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'ann', channel: 'web' }]);
    expect(dialogs).toEqual([]);
  }, 60_000);
});
