import type { IncomingMessage, ServerResponse } from 'node:http';
import { HookRateLimiter, retryAfterSeconds } from '@shop/core';
import { HttpError } from './http-errors.js';
import { mediaType, readRawBody, sendJson } from './http-io.js';
import { checkSameOrigin, type Origins } from './request-guard.js';
import type { ServerDeps } from './server-deps.js';

/**
 * A delivery's body at most: 1 MiB, the most a run's trigger data or an event's data holds
 * (GitHub sends up to 25 MB; a larger payload is refused, 413, nothing recorded).
 */
export const HOOK_BODY_BYTES = 1024 * 1024;
const PATH = /^\/hooks\/([^/]{1,200})$/;
const MEDIA = { 'application/json': false, 'application/x-www-form-urlencoded': true } as const;

/**
 * POST /hooks/<name>: a signed delivery, no session, no CSRF token (the signature is the
 * credential). In order, before the store is touched: a flood is refused (429 with
 * Retry-After, per hook and for all together); the content type (JSON, or GitHub's form whose
 * `payload` field holds the JSON; else 415) and origin (a browser's cross-site POST: 403).
 * Then core: an unknown hook 404, the body read (413 past 1 MiB), a bad signature 401 — nothing
 * recorded. Answers: 202 a run queued or an event sent, 200 filtered or a duplicate.
 */
export function hookRoute(deps: ServerDeps, origins: Origins) {
  const limiter = new HookRateLimiter({ now: () => deps.ops.now() });
  return async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    const m = PATH.exec(path);
    if (!m) throw new HttpError(404, 'nothing here; a hook is POST /hooks/<name>');
    if (req.method !== 'POST') {
      res.setHeader('Allow', 'POST');
      throw new HttpError(405, 'use POST here');
    }
    const wait = limiter.take(m[1]);
    if (wait !== true) {
      res.setHeader('Retry-After', String(retryAfterSeconds(wait)));
      throw new HttpError(429, 'too many deliveries; send again after Retry-After seconds');
    }
    const type = mediaType(req);
    if (!Object.hasOwn(MEDIA, type))
      throw new HttpError(415, 'send the body as application/json (GitHub: Content type application/json)');
    checkSameOrigin(req, origins);
    const got = await deps.ops.receiveHook({
      name: m[1],
      headers: req.headers,
      form: MEDIA[type as keyof typeof MEDIA],
      readBody: () => readRawBody(req, HOOK_BODY_BYTES),
    });
    if ('refused' in got) {
      if (got.refused === 'no-secret') deps.log(`shop serve: hook ${m[1]}: ${got.message}`);
      throw new HttpError(got.refused === 'signature' ? 401 : 503, got.message);
    }
    sendJson(res, got.duplicate || got.outcome === 'filtered' ? 200 : 202, got);
  };
}
