import type { IncomingMessage } from 'node:http';

/**
 * The session cookie's name carries the server's port: browsers keep cookies per host, not
 * per port, so two `shop serve` on one machine would otherwise sign each other out.
 */
export const sessionCookieName = (port: number) => `shop_session_${port}`;
export const FLASH_COOKIE = 'shop_flash';

/** The request's cookies (a bounded header: Node caps headers at 16 KiB). */
export function readCookies(req: IncomingMessage): Map<string, string> {
  const jar = new Map<string, string>();
  for (const part of String(req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) jar.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim());
  }
  return jar;
}

/** HttpOnly (no script reads it), SameSite=Strict (no other site's request carries it), Secure behind https. */
export function cookie(name: string, value: string, opts: { secure: boolean; maxAge?: number }): string {
  const age = opts.maxAge === undefined ? '' : `; Max-Age=${opts.maxAge}`;
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Strict${opts.secure ? '; Secure' : ''}${age}`;
}

/** A signed session (core's openWebSession), never the login token; it lasts as long as the session does. */
export const sessionCookie = (name: string, session: string, maxAgeMs: number, secure: boolean) =>
  cookie(name, session, { secure, maxAge: Math.max(0, Math.ceil(maxAgeMs / 1000)) });
export const clearCookie = (name: string, secure: boolean) => cookie(name, '', { secure, maxAge: 0 });

type Flash = { kind: 'ok' | 'error'; text: string };

/** A one-time message for the page after a redirect (what was recorded, or why not). */
export function flashCookie(flash: Flash, secure: boolean): string {
  const value = Buffer.from(JSON.stringify({ k: flash.kind, t: flash.text.slice(0, 600) })).toString('base64url');
  return cookie(FLASH_COOKIE, value, { secure, maxAge: 60 });
}

export function readFlash(jar: Map<string, string>): Flash | null {
  const raw = jar.get(FLASH_COOKIE);
  if (!raw) return null;
  try {
    const v = JSON.parse(Buffer.from(raw.slice(0, 2000), 'base64url').toString('utf8')) as { k?: unknown; t?: unknown };
    return (v.k === 'ok' || v.k === 'error') && typeof v.t === 'string' ? { kind: v.k, text: v.t.slice(0, 600) } : null;
  } catch {
    return null;
  }
}

/** The name a device answered an answer link with: filled in on the next link it opens there. */
export const ANSWERER_COOKIE = 'shop_answerer';
const A_YEAR_S = 365 * 24 * 3600;

export const answererCookie = (name: string, secure: boolean): string =>
  cookie(ANSWERER_COOKIE, Buffer.from(name.slice(0, 80)).toString('base64url'), { secure, maxAge: A_YEAR_S });

/** The remembered name, or null (absent, or anything but a plain name of at most 80 characters). */
export function readAnswerer(jar: Map<string, string>): string | null {
  const raw = jar.get(ANSWERER_COOKIE);
  if (!raw || raw.length > 200) return null;
  const name = Buffer.from(raw, 'base64url').toString('utf8').trim();
  return name && name.length <= 80 && !/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name) ? name : null;
}
