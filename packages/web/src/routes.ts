import type { Ctx } from './request-context.js';
import { apiAnswerRoute, answerRoute, claimRoute, stopRoute } from './routes-act.js';
import { apiEventsRoute, eventUrlRoute } from './routes-events.js';
import { linkAnswerRoute, linkRoute, loginPostRoute, loginRoute, logoutRoute } from './routes-access.js';
import { apiInbox, apiRun, apiRunLog, apiRuns, apiSession, inboxRoute, runRoute, runsRoute } from './routes-read.js';
import { staticRoute } from './static-files.js';
import { metricsRoute } from './routes-metrics.js';
import { apiStartRoute, bulkRoute, startFormRoute, startPostRoute } from './routes-start.js';

export type Handler = (c: Ctx, params: string[]) => Promise<void>;

/**
 * Who may reach a route: `person` a signed-in person (else the login page, or 401 for the
 * API), `person|token` that or the holder of an API token (Authorization: Bearer; the JSON
 * API only, never a page or a form), `anyone` (static files, login and answer links: the link
 * is the credential). Every POST is also checked for its origin, and a CSRF token unless it
 * carries an API token.
 */
export interface Route {
  method: 'GET' | 'POST';
  path: RegExp;
  who: 'person' | 'person|token' | 'anyone';
  handler: Handler;
}

const TOKEN = '([A-Za-z0-9_.-]{1,1024})';
const ID = '(\\d{1,15})';
/** An event URL's token names a call key, an event name and key: longer than an answer link's. */
const EVENT_TOKEN = '([A-Za-z0-9_.-]{1,2048})';

const route = (method: Route['method'], path: string, who: Route['who'], handler: Handler): Route => ({
  method,
  path: new RegExp(`^${path}$`),
  who,
  handler,
});

/** Every route, in one place. */
export const ROUTES: Route[] = [
  route('GET', '/', 'person', inboxRoute),
  route('GET', '/runs', 'person', runsRoute),
  route('GET', `/runs/${ID}`, 'person', runRoute),
  route('POST', '/answer', 'person', answerRoute),
  route('POST', '/claim', 'person', claimRoute),
  route('POST', `/runs/${ID}/stop`, 'person', stopRoute),
  route('POST', '/logout', 'person', logoutRoute),
  route('GET', '/api/inbox', 'person|token', apiInbox),
  route('GET', '/api/runs', 'person|token', apiRuns),
  route('GET', `/api/runs/${ID}`, 'person|token', apiRun),
  route('GET', `/api/runs/${ID}/log`, 'person|token', apiRunLog),
  route('GET', '/api/session', 'person', apiSession),
  route('POST', '/api/answer', 'person|token', apiAnswerRoute),
  route('POST', '/api/events', 'person|token', apiEventsRoute),
  route('POST', '/api/runs', 'person|token', apiStartRoute),
  route('GET', '/metrics', 'person|token', metricsRoute),
  route('GET', '/start', 'person', startFormRoute),
  route('POST', '/start', 'person', startPostRoute),
  route('POST', '/runs/bulk', 'person', bulkRoute),
  route('GET', `/login/${TOKEN}`, 'anyone', loginRoute),
  route('POST', '/login', 'anyone', loginPostRoute),
  route('GET', `/a/${TOKEN}`, 'anyone', linkRoute),
  route('POST', `/a/${TOKEN}`, 'anyone', linkAnswerRoute),
  route('POST', `/e/${EVENT_TOKEN}`, 'anyone', eventUrlRoute),
  route('GET', '/static/([^/]{1,100})', 'anyone', staticRoute),
];

/** The route for a request, or what to answer instead (404, 405 with the methods allowed). */
export function findRoute(
  method: string,
  path: string,
): { route: Route; params: string[] } | { status: 404 | 405; allow?: string } {
  const matching = ROUTES.map((r) => ({ route: r, m: r.path.exec(path) })).filter((x) => x.m);
  const hit = matching.find((x) => x.route.method === method);
  if (hit) return { route: hit.route, params: hit.m!.slice(1) };
  return matching.length
    ? { status: 405, allow: [...new Set(matching.map((x) => x.route.method))].join(', ') }
    : { status: 404 };
}
