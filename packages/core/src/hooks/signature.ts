import { createHmac, timingSafeEqual } from 'node:crypto';
import { headerValue, type HookHeaders } from './hook-headers.js';

/**
 * A hook's delivery is genuine when its raw body's HMAC-SHA256, keyed with the hook's secret,
 * is what the sender put in its signature header: `X-Hub-Signature-256` from GitHub,
 * `X-Shop-Signature-256` from anything else, both as `sha256=<64 hex digits>`. The body is
 * the bytes as received — JSON parsed and written again is other bytes. GitHub's older
 * `X-Hub-Signature` (SHA-1) is never enough.
 */
export const SIGNATURE_HEADERS = ['X-Hub-Signature-256', 'X-Shop-Signature-256'] as const;
export type SignatureHeader = (typeof SIGNATURE_HEADERS)[number];

/** A signature header longer than this is not one (`sha256=` and 64 digits is 71) and is not read further. */
export const MAX_SIGNATURE_HEADER_CHARS = 100;
const SIGNATURE = /^sha256=([0-9a-fA-F]{64})$/;

export type SignatureFailure = 'no-secret' | 'unsigned' | 'malformed' | 'mismatch';
export type SignatureCheck =
  | { readonly ok: true; readonly header: SignatureHeader }
  | { readonly ok: false; readonly reason: SignatureFailure; readonly message: string };

export interface SignedDelivery {
  /** The hook's secret (its HMAC key, as UTF-8). */
  readonly secret: string;
  /** The request body exactly as it arrived. */
  readonly rawBody: Buffer;
  readonly headers: HookHeaders;
}

/** `sha256=<hex>`: the header value a sender puts beside `rawBody` (the stand-ins and tests sign with it). */
export function signBody(secret: string, rawBody: Buffer | string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/**
 * Whether a delivery is signed with the secret. Every signature header present must be
 * well formed and match (a second header cannot vouch for a bad first one); at least one must
 * be present. The comparison is of the 32 digest bytes, in constant time.
 */
export function verifySignature({ secret, rawBody, headers }: SignedDelivery): SignatureCheck {
  if (secret.length === 0) return fail('no-secret', 'the hook has no secret to check signatures with');
  const present = SIGNATURE_HEADERS.flatMap((name) => {
    const value = headerValue(headers, name);
    return value === undefined ? [] : [{ name, value }];
  });
  if (present.length === 0)
    return fail(
      'unsigned',
      'the delivery is not signed: send X-Hub-Signature-256 or X-Shop-Signature-256, sha256= and the hex HMAC-SHA256 of the body with the hook secret',
    );
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  for (const { name, value } of present) {
    const m = value.length <= MAX_SIGNATURE_HEADER_CHARS ? SIGNATURE.exec(value) : null;
    if (!m) return fail('malformed', `the ${name} header is not sha256= followed by 64 hex digits`);
    const given = Buffer.from(m[1], 'hex');
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return fail('mismatch', `the ${name} header does not match the body: check the hook's secret`);
  }
  return { ok: true, header: present[0].name };
}

const fail = (reason: SignatureFailure, message: string): SignatureCheck => ({ ok: false, reason, message });
