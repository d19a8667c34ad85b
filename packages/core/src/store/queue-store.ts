import type { Channel, Run, Trigger } from '../types.js';
import type { EventInput, NewRun, OwnerClaim } from './store.js';

/** A run recorded as queued: no owner until a worker takes it. */
export interface NewQueuedRun extends Omit<NewRun, 'owner' | 'leaseMs'> {
  priority: number;
  /** --key: runs of one key count apart against `concurrency`. */
  queueKey: string | null;
  /** Its workflow's config{ concurrency } (null: no bound). */
  concurrency: number | null;
  trigger: Trigger;
  /** The starter's idempotency id: a second start with it returns the first run. */
  startId: string | null;
  /**
   * A foreground shop run waiting here for its turn: it holds the queued run (leased) so no worker
   * takes it; once its lease lapses (the process gone) the workers may.
   */
  owner?: OwnerClaim;
  leaseMs?: number;
}

/**
 * The queue, part of the store port. A run waits `queued` until a worker takes it: highest
 * priority first, then the oldest, and only while fewer runs of its workflow (and key) than
 * its concurrency are being driven (running or waiting) — checked and taken in one
 * transaction, so racing workers on any number of machines never exceed it.
 */
export interface QueueStore {
  /** Records a queued run and its first event; `created` false when `startId` named a run already (that one is returned). */
  queueRun(input: NewQueuedRun): Promise<{ run: Run; created: boolean }>;
  /**
   * Takes up to `limit` queued runs for `owner` (leased for `leaseMs`), each made `running`
   * with a `run_taken` event; `only`: just these runs (a foreground shop run waiting for room).
   * `accept`: a run it refuses stays queued, untouched, for another worker (this one's checkout
   * lacks its workflow); the runs after it are looked at as if it were not there.
   */
  claimQueuedRuns(
    owner: OwnerClaim,
    leaseMs: number,
    limit: number,
    only?: number,
    accept?: (run: Run) => boolean,
  ): Promise<Run[]>;
  /** A queued run's new priority (with its event); false when it is no longer queued. */
  setPriority(runId: number, priority: number, by: string, channel: Channel): Promise<boolean>;
  /**
   * Hands a failed run, or a running one whose driver is gone (no owner, or a lease lapsed by the
   * store's clock), back to the workers: queued again, its log kept (the worker that takes it
   * replays it and goes on), with a `retried` event. False when it is neither now.
   */
  requeue(runId: number, by: string, channel: Channel): Promise<boolean>;
  /** Ends a queued run no worker took (stuck, with the stop's reason and its event); false once one took it. */
  dequeue(runId: number, reason: string, by: string): Promise<boolean>;
  /** The queued runs in the order workers take them (ignoring concurrency), at most `limit`. */
  listQueued(limit: number): Promise<Run[]>;
}

/** The most candidates one claim looks through: runs held back by their concurrency are skipped, not waited on. */
export const QUEUE_SCAN = 500;

/** Whether a queued run may be taken now, given how many runs of its group are driven (counted per claim). */
export function hasRoom(run: Pick<Run, 'concurrency'>, driven: number): boolean {
  return run.concurrency === null || driven < run.concurrency;
}

/** A run's concurrency group: its workflow and key ("" apart from any key). */
export const groupOf = (run: Pick<Run, 'spec' | 'queueKey'>): string => JSON.stringify([run.spec, run.queueKey]);

/** The channel a queued run's first event names, by what started it. */
export function startChannel(trigger: Trigger): Channel {
  if (trigger.kind === 'cli' || trigger.kind === 'web' || trigger.kind === 'api') return trigger.kind;
  return trigger.kind === 'webhook' ? 'api' : 'engine';
}

/** The first event's data: what started it and how it waits (its actor is the trigger's `by`). */
export function queuedEventData(input: NewQueuedRun): Record<string, unknown> {
  return {
    spec: input.spec,
    prompt: input.prompt,
    queued: true,
    priority: input.priority,
    key: input.queueKey,
    trigger: { kind: input.trigger.kind, name: input.trigger.name },
  };
}

/** The trail's line for a queued run taken: which worker (host, pid) drives it. */
export function takenEvent(owner: OwnerClaim): EventInput {
  return { type: 'run_taken', actor: 'shop', channel: 'worker', data: { host: owner.host, pid: owner.pid } };
}

/** A run started by its driver (shop run, a parent's call): a person on the CLI, or its parent run. */
export function startedBy(input: { actor: string | null }, parent: { runId: number } | null): Trigger {
  return parent
    ? { kind: 'parent', name: String(parent.runId), by: null, data: null }
    : { kind: 'cli', name: null, by: input.actor, data: null };
}

/** The trail's line for a queued run stopped before any worker took it. */
export function dequeuedEvent(reason: string, by: string): EventInput {
  return { type: 'stopped', actor: by, channel: 'cli', data: { reason, queued: true } };
}

/** The owner columns of a queued run: a foreground run's, leased from `now`; else none. */
export function heldBy(input: Pick<NewQueuedRun, 'owner' | 'leaseMs'>, now: number) {
  const o = input.owner;
  return {
    token: o?.token ?? null,
    host: o?.host ?? null,
    pid: o?.pid ?? null,
    pidStart: o?.pidStart ?? null,
    leaseUntil: o ? Math.round(now + (input.leaseMs ?? 0)) : null,
  };
}
