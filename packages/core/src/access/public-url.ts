import { UsageError } from '../errors.js';
import type { Clock } from '../engine/ports.js';
import type { Store } from '../store/store.js';
import { answerLinkToken, type LinkAsk } from './answer-link.js';

/**
 * The address people reach `shop serve` at (a tunnel, a reverse proxy with TLS), recorded in
 * the store's settings so whichever process sends a notice can put an answer link in it.
 */
export const PUBLIC_URL = 'serve.public_url';
const MAX_URL = 2000;

/** Checks and records the public URL; returns it as stored (no trailing slash). */
export async function setPublicUrl(store: Store, url: string): Promise<string> {
  const clean = checkPublicUrl(url);
  await store.setSetting(PUBLIC_URL, clean);
  return clean;
}

export async function publicUrl(store: Store): Promise<string | null> {
  return store.getSetting(PUBLIC_URL);
}

/** The answer link of one ask, or null while no public URL is recorded. */
export async function answerUrl(store: Store, clock: Clock, ask: LinkAsk): Promise<string | null> {
  const base = await publicUrl(store);
  return base ? `${base}/a/${await answerLinkToken(store, clock, ask)}` : null;
}

/** An http(s) URL without credentials, query or fragment, its trailing slashes trimmed; UsageError otherwise. */
export function checkPublicUrl(raw: string): string {
  const bad = (why: string) =>
    new UsageError(
      `not a usable public URL ${JSON.stringify(raw.slice(0, 100))}: ${why}; give the address people open, e.g. https://shop.example.com`,
    );
  if (raw.length > MAX_URL) throw bad(`longer than ${MAX_URL} characters`);
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw bad('not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw bad('it must start with http:// or https://');
  if (url.username || url.password) throw bad('it must not hold a user name or password');
  if (url.search || raw.includes('?')) throw bad('it must not have a query (?…)');
  if (url.hash || raw.includes('#')) throw bad('it must not have a fragment (#…)');
  return url.href.replace(/\/+$/, '');
}
