import { describe, expect, it } from 'vitest';
import { makeProject, runId, trail } from './harness.js';
import { answerLink, http, postForm, startServe } from './serve-harness.js';

/**
 * An answer link with JavaScript off: a refused answer came back as a bare 400 page, the typed
 * values gone. Now it is the link's own page again, the refusal said on the form and every value
 * kept — as the signed-in answer route does.
 */

const LAUNCH = `function workflow(prompt)
  local d = pause{ message = "Launch?", decisions = {
    { id = "cap", type = "number", prompt = "Daily cap (USD)", constraints = { min = 10, max = 500 } },
  } }
  return d.answers.cap
end
`;

const csrfOf = (body: string) => /name="csrf" value="([^"]+)"/.exec(body)![1];
const answered = (p: ReturnType<typeof makeProject>, id: number) =>
  trail(p, id).filter((e) => e.type === 'human_answered');

describe('a refused answer on an answer link (no JavaScript)', () => {
  it('a bad decision value: the ask page again, the refusal on its form, the typed values kept; then a good one is recorded', async () => {
    const p = makeProject();
    p.write('workflows/launch.lua', LAUNCH);
    const id = runId(await p.shopAsync(['run', 'launch']));
    const s = await startServe(p);
    const token = await answerLink(p, { runId: id, key: '1', ask: 1 });
    const csrf = csrfOf((await http(s, `/a/${token}`)).body);

    const refused = await postForm(
      s,
      `/a/${token}`,
      { handle: `${id}.1`, verb: 'decide', csrf, by: 'Cy', 'd.cap': '5000', message: 'go big' },
      '',
    );
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('<title>Answer · launch');
    expect(refused.body).toMatch(
      /<p class="problems" role="alert">Not sent — please fix:\ninvalid answers, nothing recorded: cap: [^<]*500/,
    );
    expect(refused.body).toMatch(/name="d\.cap"[^>]*value="5000"/);
    expect(refused.body).toMatch(/name="by"[^>]*value="Cy"/);
    expect(refused.body).toContain('>go big</textarea>');
    expect(refused.body).toContain(`action="/a/${token}"`);
    expect(answered(p, id)).toEqual([]);

    // The page's form posts again as it is (its CSRF token still good).
    const ok = await postForm(
      s,
      `/a/${token}`,
      { handle: `${id}.1`, verb: 'decide', csrf: csrfOf(refused.body), by: 'Cy', 'd.cap': '50' },
      '',
    );
    expect(ok.status).toBe(303);
    expect(answered(p, id)).toMatchObject([{ actor: 'Cy', channel: 'link' }]);
  });

  it("no name, and an agent's approval rejected without feedback: each said on the form, what was typed kept", async () => {
    const p = makeProject();
    p.scenario({
      agents: { coder: [{ status: 'NEEDS_HUMAN', awaiting: 'approval', reason: 'Merge the migration?' }] },
    });
    p.write('workflows/ask.lua', 'function workflow(prompt)\n  return run("coder", prompt).status\nend\n');
    const id = runId(await p.shopAsync(['run', 'ask', 'go']));
    const s = await startServe(p);
    const token = await answerLink(p, { runId: id, key: '1', ask: 1 });
    const csrf = csrfOf((await http(s, `/a/${token}`)).body);

    const nameless = await postForm(
      s,
      `/a/${token}`,
      { handle: `${id}.1`, verb: 'approve', csrf, message: 'looks right' },
      '',
    );
    expect(nameless.status).toBe(400);
    expect(nameless.body).toContain('Not sent — please fix:\ngive your name: it is recorded with your answer</p>');
    expect(nameless.body).toContain('>looks right</textarea>');

    const bare = await postForm(s, `/a/${token}`, { handle: `${id}.1`, verb: 'reject', csrf, by: 'Dee' }, '');
    expect(bare.status).toBe(400);
    expect(bare.body).toMatch(/<p class="problems" role="alert">Not sent — please fix:\n[^<]*feedback/);
    expect(bare.body).toMatch(/<details class="more v-reject"[^>]* open>/);
    expect(bare.body).toMatch(/name="by"[^>]*value="Dee"/);
    expect(answered(p, id)).toEqual([]);
  });
});
