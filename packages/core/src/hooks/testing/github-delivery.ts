import { createHmac, randomUUID } from 'node:crypto';
import { signBody } from '../signature.js';

/**
 * Deliveries as senders make them, for tests (unit and e2e): the body's bytes and the headers
 * that come with them, signed with `secret`. A payload that is a Buffer or a string is sent as
 * those bytes; anything else as its JSON text.
 */
export interface TestDelivery {
  readonly headers: Record<string, string>;
  readonly body: Buffer;
}

export interface GithubDeliveryOptions {
  /** X-GitHub-Event; `issues` unless told. */
  readonly event?: string;
  /** X-GitHub-Delivery; a fresh GUID unless told (a redelivery keeps its GUID). */
  readonly delivery?: string;
  /** X-GitHub-Hook-ID: the webhook's id on GitHub. */
  readonly hookId?: number;
}

const bodyOf = (payload: unknown): Buffer =>
  Buffer.isBuffer(payload) ? payload : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload));

/**
 * The headers GitHub documents for a repository webhook with a secret ("Webhook events and
 * payloads" → Delivery headers): the event, a GUID per delivery, the hook's id and where it is
 * installed, the SHA-1 signature kept for old integrations and the SHA-256 one, a
 * `GitHub-Hookshot/…` User-Agent, and JSON.
 */
export function githubDelivery(payload: unknown, secret: string, options: GithubDeliveryOptions = {}): TestDelivery {
  const body = bodyOf(payload);
  const repositoryId = (payload as { repository?: { id?: unknown } } | null)?.repository?.id;
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      'User-Agent': 'GitHub-Hookshot/044aadd',
      'X-GitHub-Delivery': options.delivery ?? randomUUID(),
      'X-GitHub-Event': options.event ?? 'issues',
      'X-GitHub-Hook-ID': String(options.hookId ?? 292430182),
      'X-GitHub-Hook-Installation-Target-ID': String(typeof repositoryId === 'number' ? repositoryId : 79929171),
      'X-GitHub-Hook-Installation-Target-Type': 'repository',
      'X-Hub-Signature': `sha1=${createHmac('sha1', secret).update(body).digest('hex')}`,
      'X-Hub-Signature-256': signBody(secret, body),
    },
  };
}

export interface ShopDeliveryOptions {
  /** X-Shop-Event, when given. */
  readonly event?: string;
  /** X-Shop-Delivery, when given (without one the body's SHA-256 names the delivery). */
  readonly delivery?: string;
}

/** A delivery from any other sender (a script, a CI job): JSON signed in X-Shop-Signature-256. */
export function shopDelivery(payload: unknown, secret: string, options: ShopDeliveryOptions = {}): TestDelivery {
  const body = bodyOf(payload);
  return {
    body,
    headers: {
      'Content-Type': 'application/json',
      ...(options.event === undefined ? {} : { 'X-Shop-Event': options.event }),
      ...(options.delivery === undefined ? {} : { 'X-Shop-Delivery': options.delivery }),
      'X-Shop-Signature-256': signBody(secret, body),
    },
  };
}
