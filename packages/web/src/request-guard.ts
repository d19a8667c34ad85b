import type { IncomingMessage } from 'node:http';
import { networkInterfaces } from 'node:os';
import { HttpError } from './http-errors.js';

export interface Origins {
  /** Host header values we answer to ("127.0.0.1:7878", "localhost:7878", the public URL's host). */
  hosts: Set<string>;
  /** Origins a state-changing request may come from ("http://127.0.0.1:7878", "https://shop.example"). */
  origins: Set<string>;
}

const WILDCARD = new Set(['0.0.0.0', '::', '[::]']);

/** `[::1]` for IPv6 literals, as they appear in Host headers and origins. */
const hostPart = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host).toLowerCase();

/**
 * The names this server is reached by. Anything else in a Host header is refused: a page on
 * another site whose name an attacker re-points at 127.0.0.1 (DNS rebinding) sends its own
 * name. Bound to every interface, the machine's own addresses count too (never a guessed name).
 */
export function originsOf(boundHost: string, port: number, publicUrl: string | null): Origins {
  const names = new Set([hostPart(boundHost), 'localhost', '127.0.0.1', '[::1]']);
  if (WILDCARD.has(boundHost)) {
    for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) names.add(hostPart(a.address));
  }
  const hosts = new Set([...names].map((n) => `${n}:${port}`));
  const origins = new Set([...hosts].map((h) => `http://${h}`));
  if (publicUrl) {
    const u = new URL(publicUrl);
    hosts.add(u.host.toLowerCase());
    origins.add(u.origin.toLowerCase());
  }
  return { hosts, origins };
}

/** 421 unless the Host header names this server. */
export function checkHost(req: IncomingMessage, o: Origins) {
  const host = String(req.headers.host ?? '').toLowerCase();
  if (!o.hosts.has(host))
    throw new HttpError(
      421,
      `this server does not answer to the host ${JSON.stringify(host.slice(0, 100))}; open it by its own address`,
    );
}

/**
 * A state change must come from our own pages. Browsers say where a POST comes from: Origin
 * (ours, or "null" — Chromium sends that on a page's own form posts under
 * `Referrer-Policy: no-referrer` — in which case Sec-Fetch-Site must say same-origin) and
 * Sec-Fetch-Site. A request with neither header is no browser's (curl, a script): the session
 * cookie and the CSRF token, checked besides, are what stand then.
 */
export function checkSameOrigin(req: IncomingMessage, o: Origins) {
  const origin = req.headers.origin;
  const site = req.headers['sec-fetch-site'];
  const refused = () => new HttpError(403, 'refused: this request did not come from a page of this server');
  if (site !== undefined && site !== 'same-origin') throw refused();
  if (origin === undefined) return;
  if (origin === 'null') {
    if (site !== 'same-origin') throw refused();
    return;
  }
  if (!o.origins.has(origin.toLowerCase())) throw refused();
}
