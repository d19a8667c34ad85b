import { createHash, randomBytes } from 'node:crypto';
import { NotFoundError, UsageError } from '../errors.js';
import type { AccessKind, Person } from '../store/access-store.js';
import type { Store } from '../store/store.js';

/**
 * People who may sign in to `shop serve`. Each gets a personal login token: 32 random bytes,
 * shown once in their login link and stored only as its SHA-256 — a copy of the store (a
 * backup, a bug report) gives no one access. Looking a token up by its hash is an index
 * lookup on a value the caller cannot steer byte by byte, so no timing leaks the token.
 */

const NAME = /^[\p{L}\p{N} ._@-]{1,64}$/u;
/** base64url of 32 bytes is 43 characters; anything much longer is not ours. */
const MAX_TOKEN = 128;

export function checkPersonName(name: string): string {
  if (!NAME.test(name) || name.trim() !== name) {
    throw new UsageError(
      `not a usable name: ${JSON.stringify(name.slice(0, 80))}; a name is 1–64 letters, digits, spaces and . _ - @ (no leading or trailing space)`,
    );
  }
  return name;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Adds a person and returns their new login token — the only time it is ever seen. */
export async function addPerson(store: Store, name: string, by: string): Promise<{ token: string }> {
  checkPersonName(name);
  const token = randomBytes(32).toString('base64url');
  await store.addPerson({ name, tokenHash: hashToken(token), by });
  return { token };
}

/** The person a login token belongs to (not revoked), or null for anything else. */
export async function personByToken(store: Store, token: string): Promise<{ name: string } | null> {
  if (typeof token !== 'string' || token.length === 0 || token.length > MAX_TOKEN) return null;
  const person = await store.findPersonByTokenHash(hashToken(token));
  // An API token is never a login link: it opens no page.
  return person?.kind === 'login' ? { name: person.name } : null;
}

/** Everyone who was given access, revoked too; never a token (only its hash is stored). */
export async function listPeople(store: Store): Promise<Person[]> {
  return store.listPeople();
}

/** Revokes `name`'s login link or API token; says which kind it was. */
export async function revokePerson(store: Store, name: string): Promise<AccessKind> {
  // Read first only to say what was revoked; the revoke itself is one statement.
  const kind = (await store.listPeople()).find((p) => p.name === name && p.revokedAt === null)?.kind ?? 'login';
  if (!(await store.revokePerson(name))) {
    throw new NotFoundError(`no one named ${JSON.stringify(name.slice(0, 80))} has access`, [{ verb: 'access-list' }]);
  }
  return kind;
}

/** The personal login link of a token on a server at `base` (no trailing slash). */
export function loginUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/login/${token}`;
}
