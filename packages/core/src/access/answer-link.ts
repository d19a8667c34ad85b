import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { linkPayloadFields } from './link-payload.js';
import { readSignedToken, signToken } from './signed-token.js';
import { askHandle } from '../decisions/ask-handle.js';
import { ExpiredError, UsageError } from '../errors.js';
import { localTime } from '../local-time.js';
import type { Clock } from '../engine/ports.js';
import type { Store } from '../store/store.js';

/**
 * Answer links: `/a/<token>` answers exactly one ask, without signing in. The token is
 * `<payload>.<signature>`: payload the base64url JSON `{r: run, k: call, a: ask, e: expiry ms}`,
 * signature its HMAC-SHA256 under a key made once per store (32 random bytes in `settings`,
 * `answer_link_key`), so nothing needs storing per link and a copy of the links reveals no key.
 * Single use comes from the ask itself: a link names one ask, and once that ask has been
 * answered (first answer wins) the link can only show who answered it.
 */

/** How long an answer link works unless told otherwise: 7 days. */
export const ANSWER_LINK_TTL_MS = 7 * 24 * 60 * 60 * 1000;
export const ANSWER_LINK_KEY = 'answer_link_key';
/** Far more than any real token (a call key nested 50 deep); longer input is not parsed at all. */
const MAX_TOKEN = 1024;

const Payload = lazySchema(() =>
  z.strictObject({ ...linkPayloadFields(), a: z.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
);

/** The ask a link answers: run, call and which of the call's asks. */
export interface LinkAsk {
  runId: number;
  key: string;
  ask: number;
}

export interface AnswerLink extends LinkAsk {
  /** The ask's handle (`<run>.<call>[.<n>]`). */
  handle: string;
  expiresAt: number;
}

/** A signed link token for one ask, valid `ttlMs` from now (the clock's now). */
export async function answerLinkToken(
  store: Store,
  clock: Clock,
  ask: LinkAsk,
  ttlMs = ANSWER_LINK_TTL_MS,
): Promise<string> {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new UsageError(`an answer link's lifetime must be a positive number of milliseconds, not ${ttlMs}`);
  return signToken(
    store,
    ANSWER_LINK_KEY,
    Payload.parse({ r: ask.runId, k: ask.key, a: ask.ask, e: clock.now() + ttlMs }),
  );
}

/**
 * What a token answers. UsageError "not a valid answer link" for anything not signed with
 * this store's key (forged, garbled, cut, over-long); ExpiredError once its time has passed.
 */
export async function verifyAnswerLink(store: Store, clock: Clock, token: string): Promise<AnswerLink> {
  const invalid = () =>
    new UsageError('not a valid answer link (mistyped, cut, or not made by this Shop); ask for a new one');
  const parsed = await readSignedToken(store, ANSWER_LINK_KEY, token, Payload, MAX_TOKEN);
  if (!parsed) throw invalid();
  const link = {
    runId: parsed.r,
    key: parsed.k,
    ask: parsed.a,
    handle: askHandle(parsed.r, parsed.k, parsed.a),
    expiresAt: parsed.e,
  };
  if (clock.now() >= link.expiresAt) {
    throw new ExpiredError(
      `this answer link for ${link.handle} expired at ${localTime(link.expiresAt)}; ask for a new one, or answer from the inbox`,
    );
  }
  return link;
}
