import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ApiTokenAddedJsonSchema, PersonJsonSchema } from '../../packages/core/src/access/person-json.js';
import { AnsweredJsonSchema, EventSentJsonSchema, RunJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { makeProject, runId, type Project } from './harness.js';
import { addPerson, http, postForm, signIn, startServe, type Served } from './serve-harness.js';
import { GATE } from './web-pages.js';

/** API tokens (shop access add --token): a script's or a CI job's way into shop serve's JSON API, never its pages. */
let p: Project;
let s: Served;
let token: string;

beforeAll(async () => {
  p = makeProject();
  p.write('workflows/gate.lua', GATE);
  const added = p.shop(['access', 'add', 'ci', '--token', '--json']);
  expect(added.stderr).toBe('');
  token = ApiTokenAddedJsonSchema.parse(JSON.parse(added.stdout)).token;
  s = await startServe(p);
});

const bearer = (t = token) => ({ Authorization: `Bearer ${t}` });
const postJson = (path: string, body: unknown, headers: Record<string, string> = bearer()) =>
  http(s, path, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json', ...headers },
  });
const stillAsking = (id: number) => p.status(id).status === 'waiting_human';
const sentEvents = () => JSON.parse(p.shop(['event', 'list', '--json']).stdout) as unknown[];

describe('shop access add --token', () => {
  it('prints the token once, and the store holds only its SHA-256, as a row of kind token', () => {
    const r = p.shop(['access', 'add', 'nightly', '--token']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('shown only this once');
    expect(r.stdout).toContain('Authorization: Bearer <token>');
    const shown = /\n {2}(shop_[A-Za-z0-9_-]{43})\n/.exec(r.stdout)![1];
    const db = new Database(join(p.dir, '.shop', 'shop.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT * FROM people ORDER BY name').all() as Record<string, unknown>[];
      expect(rows.map((x) => [x.name, x.kind])).toEqual([
        ['ci', 'token'],
        ['nightly', 'token'],
      ]);
      const sha = (t: string) => createHash('sha256').update(t).digest('hex');
      expect(rows.map((x) => x.token_hash)).toEqual([sha(token), sha(shown)]);
      for (const t of [token, shown]) expect(JSON.stringify(rows)).not.toContain(t);
    } finally {
      db.close();
    }
  });

  it('--token with --url, or --token off add, is one line and exit 2, nothing added', () => {
    for (const args of [
      ['access', 'add', 'x', '--token', '--url', 'https://shop.example'],
      ['access', 'list', '--token'],
    ]) {
      const r = p.shop(args);
      expect(r.code).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    expect(p.shop(['access', 'list']).stdout).not.toMatch(/\nx\s/);
  });
});

describe('shop serve with Authorization: Bearer', () => {
  it("reads the API, answers an ask and sends an event as the token's holder (channel api), with no cookie or CSRF token", async () => {
    const id = runId(p.shop(['run', 'gate', 'v1']));
    const runs = await http(s, '/api/runs', { headers: bearer() });
    expect(runs.status).toBe(200);
    expect(
      RunJsonSchema.array()
        .parse(JSON.parse(runs.body))
        .map((r) => r.id),
    ).toContain(id);

    const answered = await postJson('/api/answer', { handle: `${id}.1`, verdict: 'approved' });
    expect(answered.status, answered.body).toBe(200);
    expect(AnsweredJsonSchema.parse(JSON.parse(answered.body).answered)).toMatchObject({
      handle: `${id}.1`,
      verdict: 'approved',
      responder: 'ci',
      channel: 'api',
    });

    const sent = await postJson('/api/events', { name: 'ci.finished', key: 'pr-7', data: { ok: true }, id: 'build-1' });
    expect(sent.status, sent.body).toBe(201);
    expect(EventSentJsonSchema.parse(JSON.parse(sent.body)).event).toMatchObject({
      name: 'ci.finished',
      sent_by: 'ci',
      channel: 'api',
    });

    // Listed with its kind and when it was last used — never the token or its hash.
    const list = p.shop(['access', 'list', '--json']);
    const ci = PersonJsonSchema.array()
      .parse(JSON.parse(list.stdout))
      .find((x) => x.name === 'ci')!;
    expect(ci).toMatchObject({ kind: 'token', revoked_at: null });
    expect(ci.last_seen_at).not.toBeNull();
    const table = p.shop(['access', 'list']);
    expect(table.stdout).toMatch(/\nci\s+token\s+\d{4}-/);
    for (const out of [list.stdout, table.stdout]) {
      expect(out).not.toContain(token);
      expect(out).not.toContain(createHash('sha256').update(token).digest('hex'));
    }
  });

  it('a wrong, malformed, oversized or login-link token is 401 with one JSON error line, and records nothing', async () => {
    const id = runId(p.shop(['run', 'gate', 'v2']));
    const loginToken = addPerson(p, 'ann');
    const events = sentEvents().length;
    const wrong = [`shop_${'A'.repeat(43)}`, token.slice(0, -1), loginToken, `${token}${'x'.repeat(300)}`].map((t) =>
      bearer(t),
    );
    wrong.push({ Authorization: `Basic ${token}` }, { Authorization: token });
    for (const headers of wrong) {
      for (const r of [
        await postJson('/api/answer', { handle: `${id}.1`, verdict: 'approved' }, headers),
        await postJson('/api/events', { name: 'ci.finished', id: 'never' }, headers),
        await http(s, '/api/inbox', { headers }),
      ]) {
        expect(r.status).toBe(401);
        expect(r.headers['www-authenticate']).toBe('Bearer realm="shop", error="invalid_token"');
        // The API's one error document (pretty-printed like every /api/ reply), its message one line.
        const body = JSON.parse(r.body) as { error: string };
        expect(body).toEqual({ error: expect.stringContaining('API token'), status: 401 });
        expect(body.error).not.toContain('\n');
      }
    }
    expect(stillAsking(id)).toBe(true);
    expect(sentEvents()).toHaveLength(events);
  });

  it('a token opens no page, no form post and no web session: the login page (401), nothing recorded', async () => {
    const id = runId(p.shop(['run', 'gate', 'v3']));
    for (const path of ['/', '/runs', `/runs/${id}`]) {
      const page = await http(s, path, { headers: bearer() });
      expect(page.status).toBe(401);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('shop access add');
    }
    expect((await http(s, '/api/session', { headers: bearer() })).status).toBe(401);
    const form = await postForm(s, '/answer', { handle: `${id}.1`, verdict: 'approved' }, '', bearer());
    expect(form.status).toBe(401);
    expect(stillAsking(id)).toBe(true);
    // Its token is no login link.
    const login = await postForm(s, '/login', { token }, '');
    expect([login.headers['set-cookie'] ?? []].flat().some((c) => c.startsWith(`shop_session_${s.port}=`))).toBe(false);
  });

  it('revoke says it was an API token; the token is refused from then on', async () => {
    const r = p.shop(['access', 'add', 'deploy', '--token']);
    const t = /\n {2}(shop_[A-Za-z0-9_-]{43})\n/.exec(r.stdout)![1];
    expect((await http(s, '/api/inbox', { headers: bearer(t) })).status).toBe(200);
    const revoked = p.shop(['access', 'revoke', 'deploy']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain('revoked the API token of deploy');
    expect((await http(s, '/api/inbox', { headers: bearer(t) })).status).toBe(401);
    expect(JSON.parse(p.shop(['access', 'revoke', 'ci', '--json']).stdout)).toEqual({ name: 'ci', kind: 'token' });
    expect((await http(s, '/api/inbox', { headers: bearer() })).status).toBe(401);
    // A person signed in is unaffected, and still needs the CSRF token to post.
    const ann = await signIn(s, addPerson(p, 'bob'));
    expect((await http(s, '/api/inbox', { cookie: ann.cookie })).status).toBe(200);
  });
});
