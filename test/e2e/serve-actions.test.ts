import { beforeAll, describe, expect, it } from 'vitest';
import { InboxRowJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, trail, type Project } from './harness.js';
import { addPerson, http, postForm, signIn, startServe, type Served } from './serve-harness.js';

/** What a signed-in person does from the pages besides answering: claim, release, stop a run; the static files. */

const GATE =
  'function workflow(prompt)\n  local r = pause("Ship " .. prompt .. "?")\n  return { shipped = r.continue }\nend\n';

describe('shop serve: claims, stopping, static files', () => {
  let p: Project;
  let s: Served;
  let ann: { cookie: string; csrf: string };
  beforeAll(async () => {
    p = makeProject();
    p.write('workflows/gate.lua', GATE);
    s = await startServe(p);
    ann = await signIn(s, addPerson(p, 'ann'));
  });

  const claimOf = (handle: string) =>
    InboxRowJsonSchema.array()
      .parse(JSON.parse(p.shop(['inbox', '--json']).stdout))
      .find((r) => r.handle === handle)?.claimed_by ?? null;

  it('claim, release, and take over from someone else (the button says whose claim it takes)', async () => {
    const id = runId(p.shop(['run', 'gate', 'v1']));
    const handle = `${id}.1`;
    const claim = await postForm(s, '/claim', { handle, csrf: ann.csrf, back: '/' }, ann.cookie);
    expect(claim.status).toBe(303);
    expect(claim.headers.location).toBe('/');
    expect(claimOf(handle)).toMatchObject({ by: 'ann' });
    expect((await postForm(s, '/claim', { handle, release: '1', csrf: ann.csrf }, ann.cookie)).status).toBe(303);
    expect(claimOf(handle)).toBeNull();
    expect(p.shop(['claim', handle], { env: { SHOP_USER: 'bob' } }).code).toBe(0);
    expect(claimOf(handle)).toMatchObject({ by: 'bob' });
    // Releasing someone else's claim is refused; taking it over is what the claim button does.
    expect((await postForm(s, '/claim', { handle, release: '1', csrf: ann.csrf }, ann.cookie)).status).toBe(409);
    expect((await postForm(s, '/claim', { handle, csrf: ann.csrf }, ann.cookie)).status).toBe(303);
    expect(claimOf(handle)).toMatchObject({ by: 'ann' });
    expect(
      trail(p, id)
        .filter((e) => e.type === 'claimed' || e.type === 'claim_released')
        .map((e) => [e.type, e.actor, e.channel]),
    ).toEqual([
      ['claimed', 'ann', 'web'],
      ['claim_released', 'ann', 'web'],
      ['claimed', 'bob', 'cli'],
      ['claim_released', 'ann', 'web'],
      ['claimed', 'ann', 'web'],
    ]);
    // Without the CSRF token nothing changes.
    expect((await postForm(s, '/claim', { handle, release: '1' }, ann.cookie)).status).toBe(403);
    expect(claimOf(handle)).toMatchObject({ by: 'ann' });
  });

  it('stop a run from its page: ended stuck with the reason and who stopped it', async () => {
    const id = runId(p.shop(['run', 'gate', 'v2']));
    expect((await postForm(s, `/runs/${id}/stop`, { reason: 'wrong branch' }, ann.cookie)).status).toBe(403);
    const r = await postForm(s, `/runs/${id}/stop`, { reason: 'wrong branch', csrf: ann.csrf }, ann.cookie);
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(`/runs/${id}`);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: expect.stringContaining('wrong branch') });
    expect((await postForm(s, '/runs/99999/stop', { csrf: ann.csrf }, ann.cookie)).status).toBe(404);
  });

  it('pages: ?partial=1 (the live refresh) is the page body alone; a bad login link is the login page (401); logout ends the session here', async () => {
    const id = runId(p.shop(['run', 'gate', 'v3']));
    for (const path of ['/', '/runs', `/runs/${id}`, '/runs?status=waiting_human']) {
      const whole = await http(s, path, { cookie: ann.cookie });
      expect(whole.status).toBe(200);
      expect(whole.body).toMatch(/^<!doctype html>/);
      const part = await http(s, `${path}${path.includes('?') ? '&' : '?'}partial=1`, { cookie: ann.cookie });
      expect(part.status).toBe(200);
      expect(part.body).not.toContain('<html');
      expect(part.body).not.toContain('<main');
    }
    expect((await http(s, '/runs?status=bogus', { cookie: ann.cookie })).status).toBe(400);
    const bad = await http(s, `/login/${'x'.repeat(43)}`);
    expect(bad.status).toBe(401);
    expect(bad.headers['set-cookie']).toBeUndefined();
    const carl = await signIn(s, addPerson(p, 'carl'));
    const out = await postForm(s, '/logout', { csrf: carl.csrf }, carl.cookie);
    expect(out.status).toBe(303);
    expect(String(out.headers['set-cookie'])).toMatch(
      new RegExp(`shop_session_${s.port}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0`),
    );
  });

  it('static files: ours only, with fixed types, no login needed; nothing outside the folder', async () => {
    const css = await http(s, '/static/app.css');
    expect(css.status).toBe(200);
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['content-security-policy']).toContain("default-src 'none'");
    expect((await http(s, '/static/app.js')).headers['content-type']).toBe('text/javascript; charset=utf-8');
    for (const path of [
      '/static/missing.css',
      '/static/..%2Fpackage.json',
      '/static/../package.json',
      '/static/.hidden.css',
      '/static/app.css.map',
    ]) {
      expect((await http(s, path)).status).toBe(404);
    }
  });
});
