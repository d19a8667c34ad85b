import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type * as z from 'zod';
import type { Store } from '../store/store.js';

/**
 * Tokens Shop signs itself (answer links, web sessions): `<base64url JSON payload>.<HMAC-SHA256>`
 * under a key kept in the store's settings, made by whichever process signs first (first
 * writer wins), so every process on the store signs and checks alike.
 */

/** Signs `payload` with the key named `keyName` (made if the store has none yet). */
export async function signToken(store: Store, keyName: string, payload: unknown): Promise<string> {
  const stored =
    (await store.getSetting(keyName)) ?? (await store.initSetting(keyName, randomBytes(32).toString('base64url')));
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${sign(Buffer.from(stored, 'base64url'), body)}`;
}

/**
 * The payload of a token signed with `keyName`, checked against `schema`; null for anything
 * else (forged, garbled, cut, over `maxLength`). Checking never makes a key: with none, no
 * token was ever signed here.
 */
export async function readSignedToken<T>(
  store: Store,
  keyName: string,
  token: unknown,
  schema: z.ZodType<T>,
  maxLength: number,
): Promise<T | null> {
  if (typeof token !== 'string' || token.length > maxLength) return null;
  const m = /^([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return null;
  const key = await store.getSetting(keyName);
  if (key === null) return null;
  // Compared as text, not decoded bytes: base64url ignores a last character's spare bits, so
  // two spellings would decode to the same signature.
  const given = Buffer.from(m[2], 'utf8');
  const expected = Buffer.from(sign(Buffer.from(key, 'base64url'), m[1]), 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function sign(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(body, 'utf8').digest('base64url');
}
