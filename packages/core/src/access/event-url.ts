import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { linkPayloadFields } from './link-payload.js';
import type { Clock } from '../engine/ports.js';
import { ExpiredError, UsageError } from '../errors.js';
import { localTime } from '../local-time.js';
import type { Store } from '../store/store.js';
import { publicUrl } from './public-url.js';
import { readSignedToken, signToken } from './signed-token.js';

/**
 * Event URLs (`event_url` in a workflow): `/e/<token>` sends one event to one run, once, without
 * signing in — the URL is the credential, given to a CI job or a deploy hook. The token is signed
 * as answer links are (signed-token.ts), under a key of its own (`event_url_key`): payload
 * `{r: run, k: call key, n: event name, y: event key, e: expiry ms}`. Single use comes from the
 * store: the event is sent with the sender id `url:<run>.<call>`, which records one event at most.
 */

/** How long an event URL works unless the workflow says otherwise: 7 days. */
export const EVENT_URL_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const EVENT_URL_KEY = 'event_url_key';
/** A call key 400 characters long, a name and a key of 200 each, base64url: well under this. */
export const MAX_EVENT_URL_TOKEN = 2048;
const WORD = /^[A-Za-z0-9_.:-]{1,200}$/;

const Payload = lazySchema(() =>
  z.strictObject({ ...linkPayloadFields(), n: z.string().regex(WORD), y: z.string().regex(WORD).nullable() }),
);

/** Which event an URL sends, to which run, made by which call of it. */
export interface EventUrlTarget {
  runId: number;
  /** The call that made the URL (event_url's call key). */
  key: string;
  name: string;
  eventKey: string | null;
}

export interface VerifiedEventUrl extends EventUrlTarget {
  expiresAt: number;
}

/** The sender id that makes an event URL single-use: one event per URL, ever. */
export const eventUrlSendId = (t: EventUrlTarget) => `url:${t.runId}.${t.key}`;

/**
 * The URL of one event for one run, valid `ttlMs` from the clock's now, under the public address
 * recorded by `shop serve --public-url`; UsageError (one line saying how to set it) without one.
 */
export async function eventUrl(
  store: Store,
  clock: Clock,
  target: EventUrlTarget,
  ttlMs = EVENT_URL_TTL_MS,
): Promise<string> {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new UsageError(`an event URL's lifetime must be a positive number of milliseconds, not ${ttlMs}`);
  const base = await publicUrl(store);
  if (!base) {
    throw new UsageError(
      'event_url needs the address people and machines reach shop serve at; record it once with: shop serve --public-url https://shop.example.com',
    );
  }
  const payload = Payload.parse({
    r: target.runId,
    k: target.key,
    n: target.name,
    y: target.eventKey,
    e: clock.now() + ttlMs,
  });
  return `${base}/e/${await signToken(store, EVENT_URL_KEY, payload)}`;
}

/**
 * What a token sends. UsageError "not a valid event URL" for anything not signed with this
 * store's key (forged, garbled, cut, over-long); ExpiredError once its time has passed.
 */
export async function verifyEventUrl(store: Store, clock: Clock, token: string): Promise<VerifiedEventUrl> {
  const parsed = await readSignedToken(store, EVENT_URL_KEY, token, Payload, MAX_EVENT_URL_TOKEN);
  if (!parsed)
    throw new UsageError('not a valid event URL (mistyped, cut, or not made by this Shop); nothing was recorded');
  const url = { runId: parsed.r, key: parsed.k, name: parsed.n, eventKey: parsed.y, expiresAt: parsed.e };
  if (clock.now() >= url.expiresAt) {
    throw new ExpiredError(
      `this event URL for run ${url.runId} (${url.name}) expired at ${localTime(url.expiresAt)}; nothing was recorded`,
    );
  }
  return url;
}
