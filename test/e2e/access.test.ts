import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { hashToken, personByToken } from '../../packages/core/src/access/people.js';
import { AccessAddedJsonSchema, PersonJsonSchema } from '../../packages/core/src/access/person-json.js';
import { setPublicUrl } from '../../packages/core/src/access/public-url.js';
import { openSqliteStore } from '../../packages/core/src/store/sqlite/sqlite-store.js';
import type { Store } from '../../packages/core/src/store/store.js';
import { makeProject, type Project } from './harness.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

/** The project's store as another process (shop serve) opens it. */
function storeOf(p: Project): Store {
  const store = openSqliteStore(join(p.dir, '.shop', 'shop.db'));
  open.push(store);
  return store;
}

/** The token at the end of a login link printed by shop access add. */
function tokenIn(stdout: string, base = 'http://127.0.0.1:7878'): string {
  const m = new RegExp(`${base.replace(/[.]/g, '\\.')}/login/([A-Za-z0-9_-]{43})\\b`).exec(stdout);
  if (!m) throw new Error(`no login link in: ${stdout}`);
  return m[1];
}

describe('shop access', () => {
  it('add prints a login link, once, whose token signs the person in; the store holds only its hash', async () => {
    const p = makeProject();
    const r = p.shop(['access', 'add', 'Ann Lee']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('shown only this once');
    expect(r.stdout).toContain('shop serve on this machine; for another address, give --url');
    const token = tokenIn(r.stdout);
    expect(await personByToken(storeOf(p), token)).toEqual({ name: 'Ann Lee' });
    const db = new Database(join(p.dir, '.shop', 'shop.db'), { readonly: true });
    open.push(db);
    const row = db.prepare('SELECT * FROM people').get() as Record<string, unknown>;
    expect(row).toMatchObject({ name: 'Ann Lee', token_hash: hashToken(token), created_by: 'tester' });
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it('the link starts with --url, else the recorded public URL; --json gives {name, login_url}', async () => {
    const p = makeProject();
    const given = p.shop(['access', 'add', 'ann', '--url', 'https://shop.example.com/team/', '--json']);
    expect(given.code).toBe(0);
    const added = AccessAddedJsonSchema.parse(JSON.parse(given.stdout));
    expect(added.name).toBe('ann');
    expect(await personByToken(storeOf(p), tokenIn(added.login_url, 'https://shop.example.com/team'))).toEqual({
      name: 'ann',
    });
    await setPublicUrl(storeOf(p), 'https://inbox.example.org');
    const recorded = p.shop(['access', 'add', 'bob']);
    expect(recorded.stdout).not.toContain('on this machine');
    expect(await personByToken(storeOf(p), tokenIn(recorded.stdout, 'https://inbox.example.org'))).toEqual({
      name: 'bob',
    });
    const bad = p.shop(['access', 'add', 'carol', '--url', 'https://user:pw@x.example']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^shop: not a usable public URL .*user name or password/);
    // A refused --url adds no one.
    expect(JSON.parse(p.shop(['access', 'list', '--json']).stdout).map((x: { name: string }) => x.name)).toEqual([
      'ann',
      'bob',
    ]);
  });

  it('list shows name, kind, added, by, last seen and revoked — never the token', async () => {
    const p = makeProject();
    const token = tokenIn(p.shop(['access', 'add', 'ann']).stdout);
    p.shop(['access', 'add', 'bob']);
    await personByToken(storeOf(p), token);
    const table = p.shop(['access', 'list']);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^NAME\s+KIND\s+ADDED\s+BY\s+LAST SEEN\s+REVOKED/);
    expect(table.stdout).toMatch(/\nann\s+login\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d\s+tester\s+\d{4}-/);
    expect(table.stdout).toMatch(/\nbob\s+login\s+\S+ \S+ \S+\s+tester\s+-\s+-/);
    const json = p.shop(['access', 'list', '--json']);
    const people = PersonJsonSchema.array().parse(JSON.parse(json.stdout));
    expect(people.map((x) => [x.name, x.created_by, x.last_seen_at === null, x.revoked_at])).toEqual([
      ['ann', 'tester', false, null],
      ['bob', 'tester', true, null],
    ]);
    for (const out of [table.stdout, json.stdout]) {
      expect(out).not.toContain(token);
      expect(out).not.toContain(hashToken(token));
    }
  });

  it('revoke makes the token fail and shows in list; revoking again or an unknown name exits 5', async () => {
    const p = makeProject();
    const token = tokenIn(p.shop(['access', 'add', 'ann']).stdout);
    const r = p.shop(['access', 'revoke', 'ann']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('revoked ann');
    expect(await personByToken(storeOf(p), token)).toBeNull();
    expect(
      PersonJsonSchema.array().parse(JSON.parse(p.shop(['access', 'list', '--json']).stdout))[0].revoked_at,
    ).toMatch(/^\d{4}-/);
    for (const name of ['ann', 'zed']) {
      const again = p.shop(['access', 'revoke', name]);
      expect(again.code).toBe(5);
      expect(again.stderr).toMatch(/^shop: no one named "\w+" has access; see: shop access list\n$/);
    }
    // Added again after a revoke: a new link, the old one still dead.
    const fresh = tokenIn(p.shop(['access', 'add', 'ann']).stdout);
    expect(await personByToken(storeOf(p), fresh)).toEqual({ name: 'ann' });
    expect(await personByToken(storeOf(p), token)).toBeNull();
  });

  it('a duplicate name exits 6, a bad name exits 2, and inside an agent step it exits 2 — each with one line', () => {
    const p = makeProject();
    expect(p.shop(['access', 'add', 'ann']).code).toBe(0);
    const dup = p.shop(['access', 'add', 'ann']);
    expect(dup.code).toBe(6);
    expect(dup.stderr).toMatch(/^shop: ann already has access; .*shop access revoke "ann"/);
    expect(dup.stdout).toBe('');
    for (const bad of ['ann<script>', 'x'.repeat(65), 'a/b', '']) {
      const r = p.shop(['access', 'add', bad]);
      expect(r.code, bad).toBe(2);
      expect(r.stderr.trim().split('\n'), bad).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
    expect(p.shop(['access', 'add', 'Ann', 'Lee']).stderr).toContain('a name with spaces goes in quotes');
    for (const args of [
      ['access', 'add', 'bob'],
      ['access', 'list'],
      ['access', 'revoke', 'ann'],
    ]) {
      const r = p.shop(args, { env: { SHOP_AGENT: 'coder' } });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^shop: shop access .*cannot run inside an agent step/);
    }
    // Nothing changed from inside the agent step.
    expect(
      JSON.parse(p.shop(['access', 'list', '--json']).stdout).map((x: { name: string; revoked_at: null }) => [
        x.name,
        x.revoked_at,
      ]),
    ).toEqual([['ann', null]]);
    expect(p.shop(['access', 'remove', 'ann']).code).toBe(2);
    expect(p.shop(['access']).code).toBe(2);
  });
});
