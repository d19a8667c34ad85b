import { createHash } from 'node:crypto';
import { UsageError } from '../errors.js';
import { headerValue, type HookHeaders } from './hook-headers.js';

/**
 * Which delivery a request is, and of which event. GitHub names both in headers
 * (`X-GitHub-Delivery`, a GUID kept across its redeliveries; `X-GitHub-Event`); any other
 * sender uses `X-Shop-Delivery` and `X-Shop-Event`. Neither header is covered by the
 * signature: the id only tells a sender's retry from a new delivery, it is no replay defence.
 */
export const DELIVERY_HEADERS = ['X-GitHub-Delivery', 'X-Shop-Delivery'] as const;
export const EVENT_HEADERS = ['X-GitHub-Event', 'X-Shop-Event'] as const;

/** The words a delivery id or an event name may hold: what a GUID or `pull_request` needs, safe on a terminal or a page. */
const DELIVERY_ID = /^[A-Za-z0-9_.:-]{1,200}$/;
const EVENT_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

export interface DeliveryIdentity {
  /** Unique per hook: the same id again is the same delivery (answered "duplicate", nothing new). */
  readonly id: string;
  /** The header it came from; `body` when the sender named none. */
  readonly from: (typeof DELIVERY_HEADERS)[number] | 'body';
}

/**
 * The delivery's id from its header (X-GitHub-Delivery first). A sender that names none gets
 * `sha256:<hex of the raw body>`: the same body sent again is the same delivery, so a retry
 * without an id records nothing twice (a sender that means two deliveries with one body gives
 * each its own X-Shop-Delivery). A header present but not 1–200 of A–Z a–z 0–9 _ . : - is a
 * UsageError (the value itself is not echoed).
 */
export function deliveryId(headers: HookHeaders, rawBody: Buffer): DeliveryIdentity {
  for (const name of DELIVERY_HEADERS) {
    const value = headerValue(headers, name);
    if (value === undefined) continue;
    if (!DELIVERY_ID.test(value))
      throw new UsageError(`the ${name} header must be 1-200 of A-Z a-z 0-9 _ . : - (a GUID such as GitHub sends)`);
    return { id: value, from: name };
  }
  return { id: `sha256:${createHash('sha256').update(rawBody).digest('hex')}`, from: 'body' };
}

/** The event a delivery reports (X-GitHub-Event first), null when no header names one; UsageError when malformed. */
export function eventName(headers: HookHeaders): string | null {
  for (const name of EVENT_HEADERS) {
    const value = headerValue(headers, name);
    if (value === undefined) continue;
    if (!EVENT_NAME.test(value))
      throw new UsageError(`the ${name} header must be 1-100 of A-Z a-z 0-9 _ . : - (an event name such as issues)`);
    return value;
  }
  return null;
}
