import type { IncomingMessage, ServerResponse } from 'node:http';
import { ChangeFeed, MAX_LISTENERS, MAX_LISTENERS_EACH } from './change-feed.js';
import { sessionCookieName } from './cookies.js';
import type { CsrfTokens } from './csrf.js';
import { HttpError, httpFailure } from './http-errors.js';
import { discardBody, MAX_URL_CHARS, SECURITY_HEADERS, sendJson } from './http-io.js';
import { checkHost, checkSameOrigin, type Origins } from './request-guard.js';
import { requestContext, type Ctx } from './request-context.js';
import { errorResponse } from './routes-access.js';
import { findRoute } from './routes.js';
import { hookRoute } from './routes-hooks.js';
import type { ServerDeps } from './server-deps.js';

/**
 * Every request, in order: security headers; a bounded URL; the Host header (DNS rebinding);
 * the route; the session, or on the JSON API an API token; for a POST, the origin (the CSRF
 * token, not needed with an API token, is checked by the handler that reads the body). Failures are mapped to a status once, as a page or (under /api/, /e/
 * /events and /hooks/) JSON, and never show internals.
 */
export function createApp(deps: ServerDeps, origins: Origins, csrf: CsrfTokens, feed: ChangeFeed, port: number) {
  const sessionCookie = sessionCookieName(port);
  // Cookies are Secure when the request came through the https public address (a proxy or a
  // tunnel); the same server opened at http://127.0.0.1 still signs people in.
  const httpsHost = deps.publicUrl?.startsWith('https:') ? new URL(deps.publicUrl).host.toLowerCase() : null;
  const hooks = hookRoute(deps, origins);
  return async function handle(req: IncomingMessage, res: ServerResponse) {
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) res.setHeader(name, value);
    let c: Ctx | null = null;
    const url = new URL('http://server/');
    try {
      if ((req.url ?? '').length > MAX_URL_CHARS) throw new HttpError(414, 'the address is too long');
      checkHost(req, origins);
      const parsed = new URL(req.url ?? '/', 'http://server');
      url.pathname = parsed.pathname;
      url.search = parsed.search;
      // A hook's delivery is signed: no session or cookie is read, and a flood is refused before the store is.
      if (url.pathname.startsWith('/hooks/')) return await hooks(req, res, url.pathname);
      const secure = httpsHost !== null && String(req.headers.host).toLowerCase() === httpsHost;
      c = await requestContext(req, res, url, { deps, origins, csrf, secure, sessionCookie });
      if (url.pathname === '/events' && req.method === 'GET') return events(c, feed);
      const found = findRoute(req.method ?? '', url.pathname);
      if ('status' in found) {
        if (found.allow) res.setHeader('Allow', found.allow);
        throw new HttpError(found.status, found.status === 404 ? 'nothing here' : `use ${found.allow} here`);
      }
      // An API token counts on the JSON API alone; on a page or a form it is not looked at (the login page, or 401).
      if (found.route.who === 'person|token' && req.headers.authorization !== undefined) {
        c.bearer = await deps.ops.apiTokenHolder(req.headers.authorization);
        if (!c.bearer) {
          // RFC 6750: a refused bearer token says so, for clients that read the header.
          res.setHeader('WWW-Authenticate', 'Bearer realm="shop", error="invalid_token"');
          throw new HttpError(
            401,
            'the API token is not valid (unknown, revoked, or not "Authorization: Bearer <token>"); make one with shop access add <name> --token',
          );
        }
      }
      if (found.route.who !== 'anyone' && !c.session && !c.bearer)
        throw new HttpError(
          401,
          found.route.who === 'person|token'
            ? 'sign in first, or send an API token as Authorization: Bearer <token> (shop access add <name> --token makes one)'
            : 'sign in first: open your personal login link (shop access add <name> prints one)',
        );
      if (req.method === 'POST') checkSameOrigin(req, origins);
      await found.route.handler(c, found.params);
    } catch (e) {
      fail(deps, c, req, res, url, e);
    }
  };
}

/** GET /events: a live stream, within the server's slots and the person's own share of them. */
function events(c: Ctx, feed: ChangeFeed) {
  if (!c.session) throw new HttpError(401, 'sign in first');
  const { token, name } = c.session;
  if (feed.countOf(name) >= MAX_LISTENERS_EACH) {
    throw new HttpError(
      429,
      `${name} has ${MAX_LISTENERS_EACH} live pages open, the most one person may; close one (its slot comes back at once), or reload later`,
    );
  }
  if (feed.size >= MAX_LISTENERS) throw new HttpError(503, 'too many live pages open; reload later');
  feed.listen(c.res, async () => (await c.deps.ops.webSession(token)) !== null, name);
}

function fail(deps: ServerDeps, c: Ctx | null, req: IncomingMessage, res: ServerResponse, url: URL, e: unknown) {
  // Machines read these: the API, the live stream, event URLs (a CI job's curl).
  const machine =
    !c ||
    url.pathname.startsWith('/api/') ||
    url.pathname === '/events' ||
    url.pathname.startsWith('/e/') ||
    url.pathname.startsWith('/hooks/');
  const { status, message } = httpFailure(e, machine ? deps.machineErrorText : undefined);
  if (status === 500)
    deps.log(
      `shop serve: ${req.method} ${url.pathname} failed: ${deps.debug ? ((e as Error)?.stack ?? e) : ((e as Error)?.message ?? e)}`,
    );
  if (res.headersSent) {
    res.destroy();
    return;
  }
  // The rest of a refused request's body is dropped so the client reads this answer, not a reset.
  if (!discardBody(req)) res.setHeader('Connection', 'close');
  try {
    if (machine) sendJson(res, status, { error: message, status });
    else errorResponse(c, status, message);
  } catch (e2) {
    // The error page itself failed: a plain line, never a crashed server.
    deps.log(`shop serve: the error page failed: ${(e2 as Error)?.message ?? e2}`);
    if (!res.headersSent)
      res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' });
    res.end(`${message}\n`);
  }
}
