import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../store/store.js';
import { checkPersonName, hashToken } from './people.js';

/**
 * API tokens: for a script or a CI job, not a person's browser. Each is a row of people of kind
 * `token` (one namespace with login links, so "answered by ci" names one holder), shown once
 * when made and stored only as its SHA-256. A token is presented as `Authorization: Bearer
 * <token>` on shop serve's /api/*; it never opens a web session or a page, and a login link's
 * token is never a bearer token.
 */

/** `shop_` and base64url of 32 random bytes: recognisable in a leaked log or a secret scanner. */
const PREFIX = 'shop_';
const TOKEN = /^shop_[A-Za-z0-9_-]{43}$/;
/** An Authorization header longer than this is not ours and is not read further. */
export const MAX_AUTHORIZATION_CHARS = 200;

/** Adds an API token for `name` and returns it — the only time it is ever seen. */
export async function addApiToken(store: Store, name: string, by: string): Promise<{ token: string }> {
  checkPersonName(name);
  const token = PREFIX + randomBytes(32).toString('base64url');
  await store.addPerson({ name, tokenHash: hashToken(token), by, kind: 'token' });
  return { token };
}

/**
 * Whose API token an Authorization header carries (unrevoked, kind `token`), or null for
 * anything else: no header, another scheme, an oversized or malformed value, a login link's
 * token, an unknown or revoked one. The row is found by the token's SHA-256 (an attacker
 * cannot steer its bytes, so the index lookup's timing says nothing of the secret), and the
 * stored hash is then compared with the computed one in constant time.
 */
export async function apiTokenHolder(store: Store, authorization: unknown): Promise<{ name: string } | null> {
  if (typeof authorization !== 'string' || authorization.length > MAX_AUTHORIZATION_CHARS) return null;
  const m = /^Bearer +(\S+) *$/i.exec(authorization);
  if (!m || !TOKEN.test(m[1])) return null;
  const hash = hashToken(m[1]);
  const row = await store.findPersonByTokenHash(hash);
  if (!row || row.kind !== 'token') return null;
  const given = Buffer.from(hash, 'utf8');
  const stored = Buffer.from(row.tokenHash, 'utf8');
  return given.length === stored.length && timingSafeEqual(given, stored) ? { name: row.name } : null;
}
