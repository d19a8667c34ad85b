import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, until } from './harness.js';
import { startServe } from './serve-harness.js';
import { askOn, signIn } from './web-pages.js';

/** A run's own page in Debian's Chromium: its timeline picture, its asks answered there, Stop. */
describe('a run page in a real browser', () => {
  it('a run page: parallel branches in their own lanes, a branch answered there, then the run stopped from it', async () => {
    const p = makeProject();
    p.write(
      'workflows/fan.lua',
      `function workflow(prompt)
  local a, b, c = parallel(
    function() return pause("Left?").continue end,
    function() return run("coder", "middle").summary end,
    function() return run("architect", "right").status end)
  return { a, b, c }
end
`,
    );
    p.scenario({
      agents: {
        coder: [{ status: 'DONE', summary: 'mid' }],
        architect: [{ status: 'NEEDS_HUMAN', reason: 'Which db?', awaiting: 'approval' }],
      },
    });
    const run = await p.shopAsync(['run', 'fan']);
    expect(run.code).toBe(3);
    const id = runId(run.stdout);
    const s = await startServe(p);
    const page = await newPage();
    await signIn(page, s.base, p, 'ann');
    await page.goto(`${s.base}/runs/${id}`);
    const lanes = await page.locator('svg.timeline g.lane').all();
    expect(await Promise.all(lanes.map((l) => l.getAttribute('data-lane')))).toEqual(['', '1/1', '1/2', '1/3']);
    expect(await page.locator('svg.timeline g.bar[data-status="waiting_human"]').count()).toBe(2);
    expect(await page.locator('svg.timeline rect.wait').count()).toBe(2);
    expect(await page.locator('h3.lane-name').allInnerTexts()).toEqual([
      'MAIN',
      'BRANCH 1/1',
      'BRANCH 1/2',
      'BRANCH 1/3',
    ]);
    expect(await page.locator('article.ask').count()).toBe(2);
    expect(await page.locator('section.activity').count()).toBe(0); // a parallel() waiting on its branches does no work itself
    await screenshot(page, 'journey-11-parallel-run');

    // Answered on the run page, the person comes back to it.
    await askOn(page, 'Left?').getByRole('button', { name: 'Approve' }).click();
    await page.waitForURL(`${s.base}/runs/${id}`);
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Approved ${id}.1/1/1`);
    await expect.poll(() => page.locator('article.ask').count(), { timeout: 10_000 }).toBe(1);
    // Taken in by the detached resume, which drives the run until it waits on its other branch again.
    await until('the run to wait on its other branch again', () => p.status(id).status === 'waiting_human');

    await page.getByLabel('Reason').fill('wrong approach');
    await page.getByRole('button', { name: `Stop run #${id}` }).click();
    await expect.poll(() => page.locator('.flash.ok').innerText()).toContain(`Run ${id} stopped`);
    await until('the run to be stopped', () => p.status(id).status === 'stuck');
    await page.goto(`${s.base}/runs/${id}`);
    expect(await page.locator('.outcome').innerText()).toContain('wrong approach');
    expect(await page.getByRole('button', { name: /^Stop run/ }).count()).toBe(0);
    await screenshot(page, 'journey-12-stopped-run');
    expect(dialogs).toEqual([]);
  }, 60_000);
});
