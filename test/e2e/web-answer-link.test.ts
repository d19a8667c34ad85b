import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, trail, until } from './harness.js';
import { answerLink, startServe } from './serve-harness.js';
import { GATE } from './web-pages.js';

/** The push path: a webhook's body carries the ask's answer link, which a person opens on a phone. */
describe('an answer link in a real browser', () => {
  it('an answer link from a webhook body, answered on a 375×812 phone; the link then says who answered', async () => {
    const bodies: Record<string, unknown>[] = [];
    const hook = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        bodies.push(JSON.parse(body) as Record<string, unknown>);
        res.end('ok');
      });
    });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      const p = makeProject();
      const hookPort = (hook.address() as AddressInfo).port;
      p.write('workflows/deploy.lua', `config{ notify = { "webhook:http://127.0.0.1:${hookPort}/hook" } }\n${GATE}`);
      const s = await startServe(p, ['--public-url', 'http://127.0.0.1']);
      const run = await p.shopAsync(['run', 'deploy', 'to prod']);
      expect(run.code).toBe(3);
      const id = runId(run.stdout);
      expect(bodies).toHaveLength(1);
      const link = bodies[0].answer_url as string;
      expect(link).toMatch(/^http:\/\/127\.0\.0\.1\/a\/[A-Za-z0-9_.-]+$/);

      const page = await newPage({ phone: true });
      await page.setViewportSize({ width: 375, height: 812 });
      // The public URL names the host; this test's server listens on its own port.
      const here = link.replace('http://127.0.0.1', s.base);
      await page.goto(here);
      await expect.poll(() => page.locator('.question').innerText()).toBe('Ship to prod?');
      // No horizontal scrolling on a phone.
      expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
      const approve = page.locator('form.v-approve');
      await approve.getByLabel('Your name').fill('dana');
      await screenshot(page, 'link-1-phone-answer-link');
      await approve.getByRole('button', { name: 'Approve' }).click();
      await expect.poll(() => page.locator('main#live').innerText()).toContain('dana');
      await until('the run to complete', () => p.status(id).status === 'completed');
      expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([
        { actor: 'dana', channel: 'link', data: { verdict: 'approved' } },
      ]);
      await screenshot(page, 'link-2-phone-answered');

      // The link again: who answered and when, no forms.
      await page.goto(here);
      expect(await page.locator('main#live').innerText()).toMatch(/dana[\s\S]*answered/);
      expect(await page.locator('form').count()).toBe(0);
      expect(dialogs).toEqual([]);
    } finally {
      hook.close();
    }
  }, 60_000);

  it('remembers the name on that device: the next link it opens has it filled in (another browser does not)', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', GATE);
    const s = await startServe(p);
    const first = runId(p.shop(['run', 'gate', 'one']));
    const second = runId(p.shop(['run', 'gate', 'two']));
    const link = async (runId: number) => `${s.base}/a/${await answerLink(p, { runId, key: '1', ask: 1 })}`;
    const page = await newPage({ phone: true });
    await page.goto(await link(first));
    const approve = page.locator('form.v-approve');
    expect(await approve.getByLabel('Your name').inputValue()).toBe('');
    await approve.getByLabel('Your name').fill('Dana Ng');
    await approve.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => page.locator('main#live').innerText()).toContain('Dana Ng');
    // The next link on this device: the name is there; approving as it is records it.
    await page.goto(await link(second));
    const next = page.locator('form.v-approve');
    expect(await next.getByLabel('Your name').inputValue()).toBe('Dana Ng');
    await screenshot(page, 'link-3-name-remembered');
    await next.getByRole('button', { name: 'Approve' }).click();
    await until('both runs to complete', () => [first, second].every((id) => p.status(id).status === 'completed'));
    expect(trail(p, second).filter((e) => e.type === 'human_answered')).toMatchObject([
      { actor: 'Dana Ng', channel: 'link' },
    ]);
    // Another browser (no cookie) asks for a name.
    const third = runId(p.shop(['run', 'gate', 'three']));
    const other = await newPage();
    await other.goto(await link(third));
    expect(await other.locator('form.v-approve').getByLabel('Your name').inputValue()).toBe('');
  }, 60_000);
});
