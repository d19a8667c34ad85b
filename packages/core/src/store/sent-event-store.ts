/**
 * Events from the outside world (CI finished, a PR reviewed, a deploy done), sent by people and
 * machines and taken by runs waiting on them. Not the runs' audit trail (`events`, appendEvent):
 * these are "sent events" and their "takes", in words and tables alike.
 */

/** How an event came in: `shop event send`, the web (a signed-in person), an API token, an event URL. */
export type SentEventChannel = 'cli' | 'web' | 'api' | 'url';

/** An event as a sender hands it in, checked already (sent-event-rules.ts): name, key and size. */
export interface NewSentEvent {
  name: string;
  key: string | null;
  /** Any JSON value; null when none was given. */
  data: unknown;
  sentBy: string;
  channel: SentEventChannel;
  /** Sent to this run alone (`--run`, an event URL); null: to every run waiting on its name. */
  runId: number | null;
  /** The sender's idempotency id (`--id`): unique per store; the same id again records nothing. */
  sendId: string | null;
}

/** A sent event as recorded; `sentAt` is the store's clock. */
export interface SentEvent {
  id: number;
  name: string;
  key: string | null;
  data: unknown;
  sentAt: number;
  sentBy: string;
  channel: SentEventChannel;
  runId: number | null;
  sendId: string | null;
}

export interface SentEventFilter {
  name?: string;
  /** Events sent to this run, and those it took. */
  runId?: number;
  /** At most this many (the newest); 0 or absent: all. */
  limit?: number;
}

/** What a run's wait takes: under its call key, the oldest event of `name` (and `key`, when not null). */
export interface EventTake {
  runId: number;
  callKey: string;
  name: string;
  key: string | null;
}

/**
 * Sent events and the runs' takes of them, part of the store port; each method one transaction.
 * An event is never lost to a run for being early: a run takes any event of its name sent at or
 * after it started, oldest first, that it has not taken yet.
 */
export interface SentEventStore {
  /**
   * Records an event at the store's now. With a `sendId` seen before, nothing new: the first
   * event, `duplicate` true. NotFoundError for a target run that does not exist, ConflictError
   * for one that has ended (nothing could take it).
   */
  sendEvent(event: NewSentEvent): Promise<SendOutcome>;
  /** Sent events matching the filter, newest first. */
  listSentEvents(filter?: SentEventFilter): Promise<SentEvent[]>;
  /**
   * A driver's take, fenced by its token: the event this call took already (replay), else the
   * oldest event of that name (and key) sent at or after the run started, not taken by this run,
   * not sent to another run — recorded as this call's take with an audit event — else null.
   * Each run takes each event at most once; different runs may take the same one.
   */
  takeEvent(token: string, take: EventTake): Promise<SentEvent | null>;
  /**
   * A call waiting on an event (wait_event) takes it and its wait ends, in one transaction: the
   * take as takeEvent records it, the call completed with `valueOf(event)` and handed over (its
   * delivery number returned). Null, nothing written, when there is nothing to take or the call
   * no longer waits (another pass ended it).
   */
  endEventWait(
    token: string,
    take: EventTake,
    valueOf: (e: SentEvent) => unknown,
  ): Promise<{ event: SentEvent; delivered: number } | null>;
  /** Runs with a call waiting on an event that it could take now (a worker's pass drives them on). */
  eventReadyRuns(): Promise<number[]>;
}

export interface SendOutcome {
  event: SentEvent;
  /** Its sender id was seen before: nothing new was recorded, `event` is the first one. */
  duplicate: boolean;
  /** Runs with a call waiting on it now (none for a duplicate); on PostgreSQL they are woken by NOTIFY. */
  waiting: number[];
}
