import { randomBytes } from 'node:crypto';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import type { Clock } from '../engine/ports.js';
import type { Store } from '../store/store.js';
import { hashToken } from './people.js';
import { readSignedToken, signToken } from './signed-token.js';

/**
 * Web sessions of `shop serve`: what the browser's cookie holds once a person signed in with
 * their login link — never the login token itself (browsers share cookies between ports, so
 * any other local server opened in that browser sees the cookie). A session is
 * `<payload>.<signature>`: payload the base64url JSON `{n: name, h: token-hash prefix,
 * s: session id, i: issued ms, e: expiry ms}`, signature its HMAC-SHA256 under a key made once
 * per store (`session_key` in `settings`). A session works until it expires, until it is ended
 * (logout: its id recorded in the store, refused by every server on it), and only while that
 * person is unrevoked with the same login token: revoking (or revoking and re-adding) them
 * ends every session they had.
 */

/** How long a web session lasts: 12 hours (then the login link again). */
export const WEB_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
export const SESSION_KEY = 'session_key';
/** Enough of the token hash to tell a re-added person's new token from the old one. */
const HASH_PREFIX = 32;
const MAX_SESSION = 600;

const Payload = lazySchema(() =>
  z
    .object({
      n: z.string().min(1).max(64),
      h: z
        .string()
        .regex(/^[0-9a-f]+$/)
        .length(HASH_PREFIX),
      // 16 random bytes: what logout records. A session signed before sessions had ids is refused (sign in again).
      s: z.string().regex(/^[A-Za-z0-9_-]{22}$/),
      i: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
      e: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    })
    .strict(),
);

export interface WebSession {
  /** The person signed in. */
  name: string;
  /** The signed session (the cookie's value). */
  session: string;
  expiresAt: number;
}

/** A new session for the holder of a login token, or null when the token is no one's (unknown, revoked). */
export async function openWebSession(
  store: Store,
  clock: Clock,
  token: string,
  ttlMs = WEB_SESSION_TTL_MS,
): Promise<WebSession | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > 128) return null;
  const person = await store.findPersonByTokenHash(hashToken(token));
  // An API token opens no web session: it is for /api/* with a bearer header alone.
  if (!person || person.kind !== 'login') return null;
  const now = clock.now();
  const payload = Payload.parse({
    n: person.name,
    h: person.tokenHash.slice(0, HASH_PREFIX),
    s: randomBytes(16).toString('base64url'),
    i: now,
    e: now + ttlMs,
  });
  return { name: person.name, session: await signToken(store, SESSION_KEY, payload), expiresAt: payload.e };
}

/** The session a cookie holds, or null: forged, garbled, expired, ended (logout), or its person revoked or given a new token since. */
export async function webSession(store: Store, clock: Clock, session: string): Promise<WebSession | null> {
  const p = await readSignedToken(store, SESSION_KEY, session, Payload, MAX_SESSION);
  if (!p) return null;
  if (clock.now() >= p.e) return null;
  if (await store.webSessionEnded(p.s)) return null;
  const person = (await store.listPeople()).find(
    (x) => x.name === p.n && x.kind === 'login' && x.revokedAt === null && x.tokenHash.startsWith(p.h),
  );
  // Looked up again by its whole hash: that is what touches last_seen_at.
  if (!person || !(await store.findPersonByTokenHash(person.tokenHash))) return null;
  return { name: person.name, session, expiresAt: p.e };
}

/**
 * Logout: ends the session on the server — recorded in the store, so the cookie (and any copy
 * of it) is refused from now on by every server on the store, not only forgotten by this
 * browser. A session that is not ours or has expired needs nothing recorded.
 */
export async function endWebSession(store: Store, clock: Clock, session: string): Promise<void> {
  const p = await readSignedToken(store, SESSION_KEY, session, Payload, MAX_SESSION);
  if (p && clock.now() < p.e) await store.endWebSession(p.s, p.e);
}
