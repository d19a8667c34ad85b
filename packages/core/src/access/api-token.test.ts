import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import { tempDir } from '../testing/temp-dir.js';
import { addApiToken, apiTokenHolder, MAX_AUTHORIZATION_CHARS } from './api-token.js';
import { addPerson, personByToken, revokePerson } from './people.js';
import { openWebSession } from './session.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function fresh() {
  let t = 1_000;
  const store = openSqliteStore(join(tempDir('shop-token-'), 'shop.db'), () => (t += 10));
  open.push(store);
  return store;
}

const clock = { now: () => 5_000 };

describe('API tokens', () => {
  it('a bearer header carrying the token names its holder; the scheme is case-insensitive', async () => {
    const store = fresh();
    const { token } = await addApiToken(store, 'ci', 'root');
    expect(token).toMatch(/^shop_[A-Za-z0-9_-]{43}$/);
    expect(await apiTokenHolder(store, `Bearer ${token}`)).toEqual({ name: 'ci' });
    expect(await apiTokenHolder(store, `bearer ${token}`)).toEqual({ name: 'ci' });
  });

  it('refuses anything else: no header, another scheme, a cut or padded token, an oversized header, a revoked token', async () => {
    const store = fresh();
    const { token } = await addApiToken(store, 'ci', 'root');
    for (const h of [
      undefined,
      ['Bearer', token],
      '',
      `Basic ${token}`,
      token,
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}x`,
      `Bearer ${token} ${token}`,
      `Bearer ${' '.repeat(MAX_AUTHORIZATION_CHARS)}${token}`,
    ])
      expect(await apiTokenHolder(store, h)).toBeNull();
    await revokePerson(store, 'ci');
    expect(await apiTokenHolder(store, `Bearer ${token}`)).toBeNull();
  });

  it('a token is no login link and a login link no token; they share one namespace of names', async () => {
    const store = fresh();
    const { token } = await addApiToken(store, 'ci', 'root');
    const login = await addPerson(store, 'ann', 'root');
    expect(await personByToken(store, token)).toBeNull();
    expect(await openWebSession(store, clock, token)).toBeNull();
    expect(await apiTokenHolder(store, `Bearer ${login.token}`)).toBeNull();
    expect(await apiTokenHolder(store, `Bearer shop_${login.token}`)).toBeNull();
    await expect(addApiToken(store, 'ann', 'root')).rejects.toThrow(ConflictError);
    expect(await revokePerson(store, 'ci')).toBe('token');
    expect(await revokePerson(store, 'ann')).toBe('login');
  });
});
