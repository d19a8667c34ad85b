import { describe, expect, it } from 'vitest';
import { dialogs, newPage, screenshot } from './browser.js';
import { makeProject, runId, trail, until } from './harness.js';
import { addPerson, startServe } from './serve-harness.js';

const XSS = '<script>alert("pwned")</script>';
const AGENT_XSS = '<img src=x onerror=alert(1)>';

describe('shop serve in a real browser (Debian Chromium)', () => {
  it('log in with a link, see the waiting run, approve it: the run completes; markup in a question stays text', async () => {
    const p = makeProject();
    p.write(
      'workflows/gate.lua',
      'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n',
    );
    const r = p.shop(['run', 'gate', XSS]);
    expect(r.code).toBe(3);
    const id = runId(r);
    const s = await startServe(p);
    const page = await newPage();
    await page.goto(`${s.base}/login/${addPerson(p, 'ann')}`);
    // The login page asks first (a link alone signs no one in); its button's post moves on to the inbox.
    await page.getByRole('button', { name: 'Sign in as ann' }).click();
    await page.waitForURL(`${s.base}/`);
    const ask = page.locator('article', { hasText: `Ship ${XSS}?` });
    await expect.poll(() => ask.count()).toBeGreaterThan(0);
    await screenshot(page, 'smoke-inbox');
    // A run that starts waiting now appears without a reload (the event stream, then the page's refetch).
    // A mark on this document: still there afterwards means no reload happened.
    await page.evaluate(() => ((globalThis as { sameDocument?: boolean }).sameDocument = true));
    const later = runId(p.shop(['run', 'gate', 'later']));
    await expect
      .poll(() => page.locator('article', { hasText: 'Ship later?' }).count(), { timeout: 15_000 })
      .toBeGreaterThan(0);
    expect(await page.evaluate(() => (globalThis as { sameDocument?: boolean }).sameDocument)).toBe(true);
    await ask
      .first()
      .getByRole('button', { name: /^approve/i })
      .first()
      .click();
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toEqual({ shipped: true });
    expect(p.status(later).status).toBe('waiting_human');
    expect(trail(p, id).filter((e) => e.type === 'human_answered')).toMatchObject([{ actor: 'ann', channel: 'web' }]);
    await page.waitForLoadState();
    await screenshot(page, 'smoke-after-approve');

    // An agent's reason holding markup: shown as text on its run's page, nothing runs.
    p.write('workflows/ask.lua', 'function workflow(prompt)\n  return run("coder", prompt)\nend\n');
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: AGENT_XSS, awaiting: 'input' }] } });
    const agentRun = runId(p.shop(['run', 'ask', 'go']));
    await page.goto(`${s.base}/runs/${agentRun}`);
    await expect.poll(() => page.locator('main').innerText()).toContain(AGENT_XSS);
    expect(await page.locator('main img').count()).toBe(0);
    await screenshot(page, 'smoke-agent-reason');
    expect(dialogs).toEqual([]);
  });

  it('with JavaScript off: sign in (the login page has a plain form button), approve by a plain form post, the next page says what was recorded', async () => {
    const p = makeProject();
    p.write(
      'workflows/gate.lua',
      'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n',
    );
    const id = runId(p.shop(['run', 'gate', 'plain']));
    const s = await startServe(p);
    const page = await newPage({ noScript: true });
    await page.goto(`${s.base}/login/${addPerson(p, 'ann')}`);
    await screenshot(page, 'login-confirm');
    await page.getByRole('button', { name: 'Sign in as ann' }).click();
    await page.waitForURL(`${s.base}/`);
    await page
      .locator('article', { hasText: 'Ship plain?' })
      .getByRole('button', { name: /^approve/i })
      .first()
      .click();
    await expect.poll(() => page.locator('body').innerText()).toContain(`Approved ${id}.1`);
    await until('the run to complete', () => p.status(id).status === 'completed');
    await screenshot(page, 'smoke-no-script');
  });
});
