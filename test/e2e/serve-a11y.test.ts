import { describe, expect, it } from 'vitest';
import { a11yProblems, newPage } from './browser.js';
import { makeProject, runId } from './harness.js';
import { addPerson, answerLink, startServe } from './serve-harness.js';
import { RELEASE } from './web-pages.js';

/**
 * Every page a person answers from, checked by axe-core in Chromium: no serious or critical
 * violation — every form field has an accessible name (a decision's number field included).
 */
const NUMBERS = `function workflow(prompt)
  local r = pause{message = "Scale " .. prompt .. "?", decisions = {
    { id = "replicas", type = "number", prompt = "How many replicas?", constraints = { min = 1, max = 9 } },
    { id = "when", type = "date", prompt = "From when?" },
    { id = "why", type = "text", prompt = "Why?" },
  }}
  return r.decisions
end
`;

describe('accessibility (axe-core)', () => {
  it('the inbox with decisions, a run, the runs list, Start a run and an answer link: no serious or critical violation', async () => {
    const p = makeProject();
    p.write('workflows/release.lua', RELEASE);
    p.write('workflows/scale.lua', NUMBERS);
    const release = runId(p.shop(['run', 'release', 'v1']));
    const scale = runId(p.shop(['run', 'scale', 'web']));
    const s = await startServe(p);
    const page = await newPage({ bypassCsp: true });
    await page.goto(`${s.base}/login/${addPerson(p, 'ann')}`);
    await page.getByRole('button', { name: 'Sign in as ann' }).click();
    await page.waitForURL(`${s.base}/`);
    const problems: string[] = [];
    for (const path of ['/', `/runs/${release}`, `/runs/${scale}`, '/runs', '/start']) {
      await page.goto(`${s.base}${path}`);
      problems.push(...(await a11yProblems(page)).map((x) => `${path} ${x}`));
    }
    const link = await newPage({ phone: true, bypassCsp: true });
    await link.goto(`${s.base}/a/${await answerLink(p, { runId: scale, key: '1', ask: 1 })}`);
    problems.push(...(await a11yProblems(link)).map((x) => `link ${x}`));
    expect(problems).toEqual([]);
    // The number field is named by its question.
    await page.goto(`${s.base}/runs/${scale}`);
    expect(await page.getByRole('spinbutton', { name: 'How many replicas?' }).count()).toBeGreaterThan(0);
  }, 60_000);
});
