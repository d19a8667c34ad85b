import type { IncomingMessage, ServerResponse } from 'node:http';
import { clearCookie, FLASH_COOKIE, flashCookie, readCookies, readFlash } from './cookies.js';
import type { CsrfTokens } from './csrf.js';
import { sendHtml } from './http-io.js';
import { pageHtml, type Page, type PageView } from './page-set.js';
import type { Origins } from './request-guard.js';
import type { ServerDeps } from './server-deps.js';

/** The person behind a session cookie, and the signed session (the cookie's value) their CSRF token is made from. */
export interface Session {
  name: string;
  token: string;
}

/** One request as the handlers see it. */
export interface Ctx {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  deps: ServerDeps;
  origins: Origins;
  csrf: CsrfTokens;
  session: Session | null;
  /** The holder of the API token the request carries (Authorization: Bearer), on a `person|token` route only. */
  bearer: { name: string } | null;
  cookies: Map<string, string>;
  /** Cookies to be set on the response (Set-Cookie values). */
  setCookies: string[];
  /** Cookies are Secure when people reach us over https (the public URL). */
  secure: boolean;
  /** This server's session cookie name (`shop_session_<port>`). */
  sessionCookie: string;
}

const MAX_SESSION_TOKEN = 600;

export async function requestContext(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  base: Omit<Ctx, 'req' | 'res' | 'url' | 'session' | 'bearer' | 'cookies' | 'setCookies'>,
): Promise<Ctx> {
  const cookies = readCookies(req);
  const token = cookies.get(base.sessionCookie);
  let session: Session | null = null;
  if (token && token.length <= MAX_SESSION_TOKEN) {
    // Signature, expiry, and the person still unrevoked with the same login token: every request.
    const found = await base.deps.ops.webSession(token);
    if (found) session = { name: found.name, token };
  }
  return { ...base, req, res, url, session, bearer: null, cookies, setCookies: [] };
}

/**
 * Who acts on a JSON API request, and by which channel: an API token's holder (`api`: no CSRF
 * token, a script sends no ambient credential) or the signed-in person (`web`, whose CSRF
 * token the POST must carry).
 */
export function apiCaller(c: Ctx): { name: string; channel: 'api' | 'web' } {
  if (c.bearer) return { name: c.bearer.name, channel: 'api' };
  c.csrf.check(c.session!.token, String(c.req.headers['x-csrf-token'] ?? ''));
  return { name: c.session!.name, channel: 'web' };
}

/** What every page shows of the request; reading the flash message clears it. */
export function pageView(c: Ctx, csrfSession = c.session?.token): PageView {
  const flash = readFlash(c.cookies);
  if (flash) c.setCookies.push(clearCookie(FLASH_COOKIE, c.secure));
  return {
    me: c.session?.name ?? null,
    csrf: csrfSession ? c.csrf.tokenFor(csrfSession) : '',
    flash,
    now: c.deps.ops.now(),
  };
}

/** A page in the layout, or (?partial=1, the live updates' refetch) its body alone. */
export function renderPage(c: Ctx, view: PageView, page: Page, status = 200) {
  const body = pageHtml(view, page, c.url.searchParams.get('partial') === '1');
  sendHtml(c.res, status, body, c.setCookies.length ? { 'Set-Cookie': c.setCookies } : {});
}

/** After a form post: back where the person was, with a one-line message. */
export function flashTo(c: Ctx, location: string, kind: 'ok' | 'error', text: string) {
  c.res
    .writeHead(303, {
      Location: location,
      'Cache-Control': 'no-store',
      'Set-Cookie': [...c.setCookies, flashCookie({ kind, text }, c.secure)],
    })
    .end();
}

/** A form's `back` field when it is a path on this server (never another site: no open redirect). */
export function backPath(form: URLSearchParams, fallback: string): string {
  const back = form.get('back') ?? '';
  return /^\/(?![/\\])[\x21-\x7e]{0,500}$/.test(back) ? back : fallback;
}
