import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeProject, runId, trail, until, type Project } from './harness.js';
import { addPerson, answerLink, http, postForm, signIn, startServe, type Served } from './serve-harness.js';

/** shop serve's access rules, through a real server process and plain HTTP requests. */

const GATE = `function workflow(prompt)
  local r = pause("Ship " .. prompt .. "?")
  return { shipped = r.continue }
end
`;
const XSS = '<script>alert("pwned")</script>';
const AGENT_XSS = '<img src=x onerror=alert(1)>';

function waitingRun(p: Project, prompt = 'v1'): number {
  const r = p.shop(['run', 'gate', prompt]);
  expect(r.code).toBe(3);
  return runId(r);
}

const answered = (p: Project, id: number) => trail(p, id).filter((e) => e.type === 'human_answered');

describe('shop serve: who may do what', () => {
  let p: Project;
  let s: Served;
  let ann: { cookie: string; csrf: string };
  beforeAll(async () => {
    p = makeProject();
    p.write('workflows/gate.lua', GATE);
    s = await startServe(p);
    ann = await signIn(s, addPerson(p, 'ann'));
  });

  it('no cookie: the login page (401), and 401 JSON for the API and the live stream', async () => {
    const page = await http(s, '/');
    expect(page.status).toBe(401);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.body).toContain('shop access add');
    for (const path of ['/api/inbox', '/api/runs', '/events']) {
      const api = await http(s, path);
      expect(api.status).toBe(401);
      expect(JSON.parse(api.body)).toMatchObject({ status: 401 });
    }
    // A made-up session is no session.
    expect((await http(s, '/', { cookie: `shop_session_${s.port}=forged` })).status).toBe(401);
  });

  it('a Host that is not ours is refused (DNS rebinding); localhost:PORT is ours', async () => {
    for (const host of ['evil.test', `evil.test:${s.port}`, '127.0.0.1:1']) {
      const r = await http(s, '/api/inbox', { headers: { Host: host }, cookie: ann.cookie });
      expect(r.status).toBe(421);
      expect(r.body).not.toContain('[');
    }
    expect((await http(s, '/api/inbox', { headers: { Host: `localhost:${s.port}` }, cookie: ann.cookie })).status).toBe(
      200,
    );
  });

  it('every response carries the CSP and the other security headers; no CORS', async () => {
    for (const [path, cookie] of [
      ['/', ann.cookie],
      ['/api/inbox', ann.cookie],
      ['/', undefined],
      ['/nowhere', ann.cookie],
    ] as const) {
      const r = await http(s, path, { cookie });
      expect(r.headers['content-security-policy']).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(r.headers['referrer-policy']).toBe('no-referrer');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['cache-control']).toBe('no-store');
      expect(r.headers['access-control-allow-origin']).toBeUndefined();
    }
  });

  it('a cross-origin POST, a POST without or with a wrong CSRF token, a GET that would act: refused, nothing recorded', async () => {
    const id = waitingRun(p);
    const fields = { handle: `${id}.1`, verb: 'approve', csrf: ann.csrf };
    const refused = [
      await postForm(s, '/answer', fields, ann.cookie, { Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site' }),
      await postForm(s, '/answer', fields, ann.cookie, { Origin: 'http://evil.test' }),
      // Origin "null" from another site's sandboxed frame: Sec-Fetch-Site says where it came from.
      await postForm(s, '/answer', fields, ann.cookie, { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' }),
      await postForm(s, '/answer', { handle: `${id}.1`, verb: 'approve' }, ann.cookie),
      await postForm(s, '/answer', { ...fields, csrf: 'x'.repeat(43) }, ann.cookie),
      await http(s, `/answer?handle=${id}.1&verb=approve&csrf=${ann.csrf}`, { cookie: ann.cookie }),
    ];
    expect(refused.map((r) => r.status)).toEqual([403, 403, 403, 403, 403, 405]);
    const api = await http(s, '/api/answer', {
      method: 'POST',
      cookie: ann.cookie,
      headers: { 'Content-Type': 'application/json', Origin: 'http://evil.test', 'X-CSRF-Token': ann.csrf },
      body: JSON.stringify({ handle: `${id}.1`, verdict: 'approved' }),
    });
    expect(api.status).toBe(403);
    const noToken = await http(s, '/api/answer', {
      method: 'POST',
      cookie: ann.cookie,
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ handle: `${id}.1`, verdict: 'approved' }),
    });
    expect(noToken.status).toBe(403);
    expect(p.status(id).status).toBe('waiting_human');
    expect(answered(p, id)).toEqual([]);
  });

  it('a form post from our page is recorded as the signed-in person on channel web, and the run goes on in the background', async () => {
    const id = waitingRun(p);
    const r = await postForm(
      s,
      '/answer',
      { handle: `${id}.1`, verb: 'approve', csrf: ann.csrf, back: '/' },
      ann.cookie,
    );
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe('/');
    await until('the run to complete', () => p.status(id).status === 'completed');
    expect(p.status(id).result).toEqual({ shipped: true });
    expect(answered(p, id)).toMatchObject([{ actor: 'ann', channel: 'web' }]);
    // The flash cookie tells the next page what was recorded.
    const flash = [r.headers['set-cookie'] ?? []].flat().find((c) => c.startsWith('shop_flash='))!;
    const next = await http(s, '/', { cookie: `${ann.cookie}; ${flash.split(';')[0]}` });
    expect(next.body).toContain(`Approved ${id}.1`);
    // A second answer loses: 409 naming who answered first.
    const again = await postForm(
      s,
      '/answer',
      { handle: `${id}.1`, verb: 'reject', message: 'no', csrf: ann.csrf },
      ann.cookie,
    );
    expect(again.status).toBe(409);
    expect(again.body).toContain('ann');
  });

  it('an open redirect through "back" is not followed', async () => {
    const id = waitingRun(p);
    const r = await postForm(
      s,
      '/answer',
      { handle: `${id}.1`, verb: 'approve', csrf: ann.csrf, back: '//evil.test/x' },
      ann.cookie,
    );
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(`/runs/${id}`);
  });

  it('a revoked person is refused at once, cookie and all', async () => {
    const bob = await signIn(s, addPerson(p, 'bob'));
    const id = waitingRun(p);
    expect(p.shop(['access', 'revoke', 'bob']).code).toBe(0);
    expect((await http(s, '/', { cookie: bob.cookie })).status).toBe(401);
    expect((await http(s, '/api/inbox', { cookie: bob.cookie })).status).toBe(401);
    const post = await postForm(s, '/answer', { handle: `${id}.1`, verb: 'approve', csrf: bob.csrf }, bob.cookie);
    expect(post.status).toBe(401);
    expect(answered(p, id)).toEqual([]);
  });

  it('bodies are bounded (413) and forms must be forms (415)', async () => {
    const big = await postForm(
      s,
      '/answer',
      { handle: '1.1', verb: 'answer', message: 'x'.repeat(300 * 1024), csrf: ann.csrf },
      ann.cookie,
    );
    expect(big.status).toBe(413);
    const json = await http(s, '/answer', {
      method: 'POST',
      cookie: ann.cookie,
      headers: { 'Content-Type': 'application/json', Origin: 'null', 'Sec-Fetch-Site': 'same-origin' },
      body: '{}',
    });
    expect(json.status).toBe(415);
  });

  it('a pause message and an agent reason holding markup are shown escaped, as text', async () => {
    const id = waitingRun(p, XSS);
    p.write('workflows/ask.lua', 'function workflow(prompt)\n  return run("coder", prompt)\nend\n');
    p.scenario({ agents: { coder: [{ status: 'NEEDS_HUMAN', reason: AGENT_XSS, awaiting: 'input' }] } });
    const r = p.shop(['run', 'ask', 'go']);
    expect(r.code).toBe(3);
    const agentRun = runId(r);
    for (const path of ['/', `/runs/${id}`, `/runs/${agentRun}`, '/runs']) {
      const page = await http(s, path, { cookie: ann.cookie });
      expect(page.status).toBe(200);
      expect(page.body).not.toContain(XSS);
      expect(page.body).not.toContain(AGENT_XSS);
      expect(page.body).not.toMatch(/<script>alert|<img src=x/);
    }
    expect((await http(s, '/', { cookie: ann.cookie })).body).toContain(
      '&lt;script&gt;alert(&quot;pwned&quot;)&lt;/script&gt;',
    );
    expect((await http(s, `/runs/${agentRun}`, { cookie: ann.cookie })).body).toContain(
      '&lt;img src=x onerror=alert(1)&gt;',
    );
    // The API carries the exact text (JSON is data).
    const inbox = JSON.parse((await http(s, '/api/inbox', { cookie: ann.cookie })).body) as { question: string }[];
    expect(inbox.map((a) => a.question)).toEqual(expect.arrayContaining([`Ship ${XSS}?`, AGENT_XSS]));
  });
});

describe('answer links', () => {
  let p: Project;
  let s: Served;
  let clock: string;
  beforeAll(async () => {
    p = makeProject();
    p.write('workflows/gate.lua', GATE);
    clock = join(p.dir, 'clock');
    writeFileSync(clock, '0');
    s = await startServe(p, [], { SHOP_CLOCK_FILE: clock });
  });

  it('answers exactly its ask without signing in, once; afterwards the page says who answered', async () => {
    const id = waitingRun(p);
    const token = await answerLink(p, { runId: id, key: '1', ask: 1 });
    const page = await http(s, `/a/${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain(`Ship v1?`);
    const csrf = /name="csrf" value="([^"]+)"/.exec(page.body)![1];
    // A name is required, one line.
    const nameless = await postForm(s, `/a/${token}`, { handle: `${id}.1`, verb: 'approve', csrf }, '');
    expect(nameless.status).toBe(400);
    const badName = await postForm(
      s,
      `/a/${token}`,
      { handle: `${id}.1`, verb: 'approve', csrf, by: 'eve\nforged line' },
      '',
    );
    expect(badName.status).toBe(400);
    // The link's own CSRF token is needed, and the post must come from our page.
    expect((await postForm(s, `/a/${token}`, { verb: 'approve', by: 'Cy' }, '')).status).toBe(403);
    expect(
      (
        await postForm(s, `/a/${token}`, { verb: 'approve', by: 'Cy', csrf }, '', {
          Origin: 'http://evil.test',
          'Sec-Fetch-Site': 'cross-site',
        })
      ).status,
    ).toBe(403);
    expect(answered(p, id)).toEqual([]);
    const ok = await postForm(s, `/a/${token}`, { handle: `${id}.1`, verb: 'approve', csrf, by: 'Cy' }, '');
    expect(ok.status).toBe(303);
    expect(ok.headers.location).toBe(`/a/${token}`);
    expect(answered(p, id)).toMatchObject([{ actor: 'Cy', channel: 'link' }]);
    // Used: a second answer is refused, and the page now says who answered.
    const reused = await postForm(
      s,
      `/a/${token}`,
      { handle: `${id}.1`, verb: 'reject', message: 'no', csrf, by: 'Dee' },
      '',
    );
    expect(reused.status).toBe(409);
    expect(reused.body).toContain('Cy');
    const after = await http(s, `/a/${token}`);
    expect(after.status).toBe(200);
    expect(after.body).toContain('Cy');
    expect(after.body).not.toContain('name="verb"');
    await until('the run to complete', () => p.status(id).status === 'completed');
  });

  it('a forged or garbled link is refused (400); an expired one is refused (410) by the Clock', async () => {
    const id = waitingRun(p, 'v2');
    const token = await answerLink(p, { runId: id, key: '1', ask: 1 }, 60_000);
    const forged = `${token.split('.')[0]}.${'A'.repeat(43)}`;
    for (const bad of [forged, 'nonsense', `${token}x`]) {
      expect((await http(s, `/a/${bad}`)).status).toBe(400);
      expect((await postForm(s, `/a/${bad}`, { verb: 'approve', by: 'Eve', csrf: 'x' }, '')).status).toBe(400);
    }
    expect((await http(s, `/a/${token}`)).status).toBe(200);
    writeFileSync(clock, '120');
    // The server reads the clock file at most every 100 ms: ask until it has.
    const expired = await until(
      'the server to read the moved clock',
      async () => {
        const r = await http(s, `/a/${token}`);
        return r.status !== 200 && r;
      },
      5_000,
    );
    expect(expired.status).toBe(410);
    expect(expired.body).toContain('expired');
    expect((await postForm(s, `/a/${token}`, { verb: 'approve', by: 'Eve', csrf: 'x' }, '')).status).toBe(410);
    writeFileSync(clock, '0');
    expect(answered(p, id)).toEqual([]);
  });
});
