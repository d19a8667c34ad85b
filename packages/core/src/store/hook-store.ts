import { UsageError } from '../errors.js';
import type { Run } from '../types.js';
import type { NewQueuedRun } from './queue-store.js';
import type { Row } from './rows.js';
import type { NewSentEvent, SendOutcome } from './sent-event-store.js';

/**
 * Webhooks (`shop hook add`; `POST /hooks/<name>` on shop serve), part of the store port. A
 * hook either starts a queued run of a workflow or sends an event to waiting runs; each
 * delivery is recorded once, with what it did, in one transaction.
 */
export interface Hook {
  /** 1–64 of A-Z a-z 0-9 _ -: the last part of its URL. */
  name: string;
  /** Starts a queued run of this workflow, or… */
  workflow: string | null;
  /** …sends this event (exactly one of the two). */
  eventName: string | null;
  /** A payload path: the run's queue key, or the event's key. */
  keyFrom: string | null;
  /** A payload path: the run's prompt. */
  promptFrom: string | null;
  /** The filter's text (hooks/filter.ts); null: every delivery is acted on. */
  filter: string | null;
  /** GitHub's headers are expected (X-Hub-Signature-256, X-GitHub-Delivery). */
  github: boolean;
  /** The secret is read from this variable of shop serve's environment, or… */
  secretEnv: string | null;
  /** …kept here (made by shop hook add, shown once). */
  secret: string | null;
  createdAt: number;
  createdBy: string;
}

export type NewHook = Omit<Hook, 'createdAt'>;

/** What a delivery did: a queued run, an event sent, or nothing (its filter refused it). */
export type DeliveryOutcome = 'run' | 'event' | 'filtered';

/** What a new delivery is to do, prepared and checked before the store is written. */
export type DeliveryAction =
  { kind: 'run'; run: NewQueuedRun } | { kind: 'event'; event: NewSentEvent } | { kind: 'filtered' };

export interface NewDelivery {
  hook: string;
  /** The delivery's id (hooks/delivery.ts): unique per hook. */
  delivery: string;
  action: DeliveryAction;
}

export type RecordedDelivery =
  /** Seen before: nothing new; what the first one did. */
  | { duplicate: true; outcome: DeliveryOutcome; runId: number | null; receivedAt: number }
  | { duplicate: false; outcome: 'run'; run: Run }
  | { duplicate: false; outcome: 'event'; sent: SendOutcome }
  | { duplicate: false; outcome: 'filtered' };

export interface HookStore {
  /** Records a hook; ConflictError when one of that name exists. */
  addHook(hook: NewHook): Promise<Hook>;
  getHook(name: string): Promise<Hook | null>;
  /** Every hook, by name. */
  listHooks(): Promise<Hook[]>;
  /** Removes a hook and its deliveries' records; false when there was none. */
  removeHook(name: string): Promise<boolean>;
  /**
   * One transaction: the delivery's row (its id seen before for this hook: nothing new,
   * `duplicate`) and what it did — the queued run and its first event, or the sent event, or
   * nothing for `filtered`. NotFoundError when the hook is gone (removed meanwhile).
   */
  recordDelivery(d: NewDelivery): Promise<RecordedDelivery>;
}

/** A name taken is bad input (exit 2), as a schedule's: nothing is recorded. */
export const hookExists = (name: string) =>
  new UsageError(
    `a hook named ${JSON.stringify(name)} exists already: remove it first (shop hook remove ${name}) or pick another name`,
  );

export function toHook(r: Row): Hook {
  const text = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return {
    name: String(r.name),
    workflow: text(r.workflow),
    eventName: text(r.event_name),
    keyFrom: text(r.key_from),
    promptFrom: text(r.prompt_from),
    filter: text(r.filter),
    github: Number(r.github) === 1,
    secretEnv: text(r.secret_env),
    secret: text(r.secret),
    createdAt: Number(r.created_at),
    createdBy: String(r.created_by),
  };
}

/** A duplicate's answer from its recorded row. */
export function duplicateOf(r: Row): RecordedDelivery {
  return {
    duplicate: true,
    outcome: String(r.outcome) as DeliveryOutcome,
    runId: r.run_id === null || r.run_id === undefined ? null : Number(r.run_id),
    receivedAt: Number(r.received_at),
  };
}

export const hookGone = (name: string) => `the hook ${JSON.stringify(name)} was removed`;
