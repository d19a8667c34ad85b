import { MAX_EVENT_DATA_BYTES, UsageError } from '@shop/core';
import * as z from 'zod';
import { readJson, sendJson } from './http-io.js';
import { apiCaller, type Ctx } from './request-context.js';

/**
 * A posted event's body may be a pretty-printed 1 MiB of data and its envelope: past this it is
 * refused unread (413); the data's own bound (1 MiB, compact) is core's to say (400).
 */
export const EVENT_BODY_BYTES = 2 * MAX_EVENT_DATA_BYTES;

const ApiEvent = z.strictObject({
  name: z.string().max(1000),
  key: z.string().max(1000).nullable().optional(),
  data: z.unknown().optional(),
  id: z.string().max(1000).nullable().optional(),
});

/**
 * POST /api/events: JSON {name, key?, data?, id?} from a signed-in person (the CSRF token in
 * X-CSRF-Token) or an API token's holder (channel `api`). 201 with {event, duplicate: false}; an id seen before: 200, the first event,
 * duplicate true. Bad input 400 (one line), nothing recorded.
 */
export async function apiEventsRoute(c: Ctx) {
  const caller = apiCaller(c);
  const parsed = ApiEvent.safeParse(await readJson(c.req, EVENT_BODY_BYTES));
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new UsageError(`${issue.path.join('.') || 'body'}: ${issue.message}`);
  }
  const { name, key, data, id } = parsed.data;
  const sent = await c.deps.ops.sendEvent({
    name,
    key,
    data,
    dataFrom: 'data',
    sendId: id,
    sentBy: caller.name,
    channel: caller.channel,
  });
  sendJson(c.res, sent.duplicate ? 200 : 201, sent);
}

/**
 * POST /e/<token>: an event URL (a workflow's event_url), for a CI job or a hook, no sign-in: the
 * body (JSON; empty: no data) is the event's data, sent to the URL's run alone, once. 201 with
 * {event, duplicate: false}; used already or expired 410, forged 400 — nothing recorded. A
 * browser on another site is refused by the origin check every POST gets.
 */
export async function eventUrlRoute(c: Ctx, [token]: string[]) {
  const empty = Number(c.req.headers['content-length'] ?? 0) === 0 && c.req.headers['transfer-encoding'] === undefined;
  const data = empty ? null : await readJson(c.req, EVENT_BODY_BYTES);
  sendJson(c.res, 201, await c.deps.ops.sendByEventUrl(token, data));
}
