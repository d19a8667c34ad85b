import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError, UsageError } from '../errors.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { addPerson, hashToken, listPeople, loginUrl, personByToken, revokePerson } from './people.js';
import { tempDir } from '../testing/temp-dir.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function fresh() {
  const file = join(tempDir('shop-people-'), 'shop.db');
  let t = 1_000;
  const store = openSqliteStore(file, () => (t += 10));
  open.push(store);
  return { file, store };
}

describe('people with access', () => {
  it('gives a 32-byte base64url token that finds its person, and stores only its sha256', async () => {
    const { file, store } = fresh();
    const { token } = await addPerson(store, 'ann@example.com', 'bob');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await personByToken(store, token)).toEqual({ name: 'ann@example.com' });
    const db = new Database(file, { readonly: true });
    open.push(db);
    const rows = db.prepare('SELECT * FROM people').all() as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).toBe(hashToken(token));
    expect(rows[0].token_hash).toMatch(/^[0-9a-f]{64}$/);
    // Nowhere in the row is the token itself.
    expect(JSON.stringify(rows)).not.toContain(token);
    expect(rows[0].created_by).toBe('bob');
  });

  it('touches last seen on a lookup (to the minute), and finds nothing for a wrong, empty or over-long token', async () => {
    const file = join(tempDir('shop-people-'), 'shop.db');
    let t = 1_000_000;
    const store = openSqliteStore(file, () => t);
    open.push(store);
    const { token } = await addPerson(store, 'ann', 'bob');
    expect((await listPeople(store))[0].lastSeenAt).toBeNull();
    await personByToken(store, token);
    expect((await listPeople(store))[0].lastSeenAt).toBe(1_000_000);
    t += 59_000;
    await personByToken(store, token);
    expect((await listPeople(store))[0].lastSeenAt).toBe(1_000_000);
    t += 1_000;
    await personByToken(store, token);
    expect((await listPeople(store))[0].lastSeenAt).toBe(1_060_000);
    expect(await personByToken(store, token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A'))).toBeNull();
    expect(await personByToken(store, '')).toBeNull();
    expect(await personByToken(store, token + 'x'.repeat(200))).toBeNull();
    // A stored hash is not a token.
    expect(await personByToken(store, hashToken(token))).toBeNull();
  });

  it('refuses a second unrevoked person of the same name; a revoked one is replaced with a new token', async () => {
    const { store } = fresh();
    const first = await addPerson(store, 'ann', 'bob');
    await expect(addPerson(store, 'ann', 'bob')).rejects.toBeInstanceOf(ConflictError);
    await revokePerson(store, 'ann');
    expect(await personByToken(store, first.token)).toBeNull();
    const second = await addPerson(store, 'ann', 'carol');
    expect(await personByToken(store, first.token)).toBeNull();
    expect(await personByToken(store, second.token)).toEqual({ name: 'ann' });
    const people = await listPeople(store);
    expect(people).toHaveLength(1);
    expect(people[0]).toMatchObject({ name: 'ann', createdBy: 'carol', revokedAt: null });
  });

  it('revoking makes the token fail; revoking an unknown or already revoked name is NotFound', async () => {
    const { store } = fresh();
    const { token } = await addPerson(store, 'ann', 'bob');
    await revokePerson(store, 'ann');
    expect(await personByToken(store, token)).toBeNull();
    expect((await listPeople(store))[0].revokedAt).toEqual(expect.any(Number));
    await expect(revokePerson(store, 'ann')).rejects.toBeInstanceOf(NotFoundError);
    await expect(revokePerson(store, 'zed')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('takes names of 1–64 letters, digits, space and . _ - @ only', async () => {
    const { store } = fresh();
    for (const ok of ['a', 'Ann Lee', 'ann.lee_2-x@corp', 'Zoë', 'x'.repeat(64)]) await addPerson(store, ok, 'bob');
    for (const bad of [
      '',
      'x'.repeat(65),
      'ann<script>',
      'a/b',
      'tab\there',
      'new\nline',
      ' ann',
      'ann ',
      'a\u001b[31m',
    ]) {
      await expect(addPerson(store, bad, 'bob')).rejects.toBeInstanceOf(UsageError);
    }
    expect(await listPeople(store)).toHaveLength(5);
  });

  it('builds a login link from a base with or without its trailing slash', () => {
    expect(loginUrl('https://shop.example.com', 'tok')).toBe('https://shop.example.com/login/tok');
    expect(loginUrl('http://127.0.0.1:7878/', 'tok')).toBe('http://127.0.0.1:7878/login/tok');
  });
});

describe('settings', () => {
  it('set overwrites; init sets only when absent and returns what is stored (first writer wins)', async () => {
    const { file, store } = fresh();
    expect(await store.getSetting('x')).toBeNull();
    expect(await store.initSetting('x', 'first')).toBe('first');
    // Another process (another connection) initialising the same setting gets the first value.
    const other = openSqliteStore(file);
    open.push(other);
    expect(await other.initSetting('x', 'second')).toBe('first');
    await store.setSetting('x', 'third');
    expect(await other.getSetting('x')).toBe('third');
  });
});
