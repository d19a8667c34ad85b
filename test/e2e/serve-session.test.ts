import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeProject, runId, until } from './harness.js';
import { addPerson, openStream, http, postForm, signIn, startServe, type Served } from './serve-harness.js';

/**
 * How `shop serve` signs people in (regressions of a hostile probe): the cookie never holds the
 * login token (browsers show a 127.0.0.1 cookie to every local server, whatever its port), a
 * session expires and ends with a revoke or a logout, and a login link signs no one in until
 * the person's own same-origin post (login CSRF).
 */

const setCookies = (r: { headers: Record<string, string | string[] | undefined> }) =>
  [r.headers['set-cookie'] ?? []].flat();

/** The login link's page, then its button (the form post a browser makes from that page). */
async function signInAs(s: Served, token: string): Promise<string> {
  const page = await http(s, `/login/${token}`);
  expect(page.status).toBe(200);
  const post = await postForm(s, '/login', { token }, '');
  expect(post.status).toBe(303);
  expect(post.headers.location).toBe('/');
  const set = setCookies(post).find((c) => c.startsWith(`shop_session_${s.port}=`));
  expect(set).toBeDefined();
  return set!.split(';')[0];
}

const me = async (s: Served, cookie: string) => {
  const r = await http(s, '/api/session', { cookie });
  return r.status === 200 ? (JSON.parse(r.body) as { name?: string; me?: string }) : r.status;
};

describe('shop serve: sessions', () => {
  it('the session cookie is a signed session, never the login token; a login link alone sets no cookie', async () => {
    const p = makeProject();
    const s = await startServe(p);
    const token = addPerson(p, 'ann');
    const page = await http(s, `/login/${token}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain('Sign in to Shop as ann?');
    expect(page.body).toMatch(/<form method="post" action="\/login">/);
    expect(setCookies(page).filter((c) => c.startsWith('shop_session'))).toEqual([]);
    const post = await postForm(s, '/login', { token }, '');
    expect(post.status).toBe(303);
    const all = setCookies(post);
    expect(all.join('\n')).not.toContain(token);
    const set = all.find((c) => c.startsWith(`shop_session_${s.port}=`))!;
    expect(set).toMatch(
      new RegExp(
        `^shop_session_${s.port}=[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43}; Path=/; HttpOnly; SameSite=Strict; Max-Age=(\\d+)$`,
      ),
    );
    // The browser forgets it when the session ends: 12 hours.
    const age = Number(/Max-Age=(\d+)$/.exec(set)![1]);
    expect(age).toBeLessThanOrEqual(12 * 3600);
    expect(age).toBeGreaterThan(11 * 3600);
    expect(await me(s, set.split(';')[0])).toMatchObject({ name: 'ann' });
    // The login token itself in the cookie signs no one in.
    expect(await me(s, `shop_session_${s.port}=${token}`)).toBe(401);
  });

  it('a cross-origin POST /login is refused and sets no cookie; a wrong token neither', async () => {
    const p = makeProject();
    const s = await startServe(p);
    const token = addPerson(p, 'eve');
    for (const headers of [
      { Origin: 'http://evil.test', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: 'null', 'Sec-Fetch-Site': 'cross-site' },
      { Origin: `http://127.0.0.1:${s.port + 1}`, 'Sec-Fetch-Site': 'same-site' },
    ]) {
      const r = await postForm(s, '/login', { token }, '', headers);
      expect(r.status).toBe(403);
      expect(setCookies(r).filter((c) => c.startsWith('shop_session'))).toEqual([]);
    }
    const wrong = await postForm(s, '/login', { token: 'x'.repeat(43) }, '');
    expect(wrong.status).toBe(401);
    expect(setCookies(wrong).filter((c) => c.startsWith('shop_session'))).toEqual([]);
  });

  it('a session expires after 12 hours (the Clock), and ends when its person is revoked, re-added or not', async () => {
    const p = makeProject();
    const clock = join(p.dir, 'clock');
    writeFileSync(clock, '0');
    const s = await startServe(p, [], { SHOP_CLOCK_FILE: clock });
    const cookie = await signInAs(s, addPerson(p, 'ann'));
    writeFileSync(clock, String(11 * 3600));
    expect(await me(s, cookie)).toMatchObject({ name: 'ann' });
    writeFileSync(clock, String(12 * 3600 + 60));
    await expect.poll(() => me(s, cookie)).toBe(401);
    expect((await http(s, '/', { cookie })).status).toBe(401);
    // A fresh sign-in works again; a revoke ends it, and re-adding the person does not revive it.
    const again = await signInAs(s, addPerson(p, 'bob'));
    expect(await me(s, again)).toMatchObject({ name: 'bob' });
    expect(p.shop(['access', 'revoke', 'bob']).code).toBe(0);
    expect(await me(s, again)).toBe(401);
    const fresh = addPerson(p, 'bob');
    expect(await me(s, again)).toBe(401);
    expect(await me(s, await signInAs(s, fresh))).toMatchObject({ name: 'bob' });
  });

  it('two servers on one machine keep their own cookies', async () => {
    const p = makeProject();
    const a = await startServe(p);
    const b = await startServe(p);
    const annAtA = await signInAs(a, addPerson(p, 'ann'));
    const bobAtB = await signInAs(b, addPerson(p, 'bob'));
    // The browser sends both cookies to both ports: each server reads its own.
    const both = `${annAtA}; ${bobAtB}`;
    expect(await me(a, both)).toMatchObject({ name: 'ann' });
    expect(await me(b, both)).toMatchObject({ name: 'bob' });
    expect(await me(a, bobAtB)).toBe(401);
  });
});

describe('shop serve: logout', () => {
  it('ends the session on the server: the old cookie is refused everywhere, and its live stream ends; other sessions go on', async () => {
    const p = makeProject();
    p.write('workflows/gate.lua', 'function workflow(prompt)\n  return pause("Ship " .. prompt .. "?")\nend\n');
    const s = await startServe(p);
    const token = addPerson(p, 'ann');
    const laptop = await signIn(s, token);
    const phone = await signIn(s, token);
    const stream = openStream(s, laptop.cookie);
    try {
      await until('the stream to open', () => stream.state.text.startsWith('retry:'));
      const out = await postForm(s, '/logout', { csrf: laptop.csrf }, laptop.cookie);
      expect(out.status).toBe(303);
      // A copy of the cookie kept anywhere (another tab, a stolen one) no longer signs anyone in.
      for (const path of ['/api/inbox', '/api/runs', '/api/session', '/events']) {
        const r = await http(s, path, { cookie: laptop.cookie });
        expect(r.status, path).toBe(401);
      }
      expect((await http(s, '/', { cookie: laptop.cookie })).status).toBe(401);
      const id = runId(p.shop(['run', 'gate', 'v1']));
      const answer = await http(s, '/api/answer', {
        method: 'POST',
        cookie: laptop.cookie,
        body: JSON.stringify({ handle: `${id}.1`, verdict: 'approved' }),
        headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': laptop.csrf },
      });
      expect(answer.status).toBe(401);
      await until('the logged-out stream to end', () => stream.state.ended);
      expect(stream.state.text).not.toMatch(/event: change/);
      // The same person signed in elsewhere is still signed in.
      expect((await http(s, '/api/inbox', { cookie: phone.cookie })).status).toBe(200);
    } finally {
      stream.close();
    }
  });
});
