import { eventUrlSendId, verifyEventUrl } from '../access/event-url.js';
import type { Clock } from '../engine/ports.js';
import { ExpiredError } from '../errors.js';
import { localTime } from '../local-time.js';
import type { Store } from '../store/store.js';
import type { NewSentEvent, SentEvent, SentEventChannel } from '../store/sent-event-store.js';
import { checkedName } from '../project/responder.js';
import { refuseAgent, type Caller } from './answer-rules.js';
import { checkEventWord, checkSendId, eventDataJson } from './sent-event-rules.js';
import type { SentEventJson, EventSentJson } from './shapes.js';

/** An event as a front end hands it in: checked here, then recorded in one store transaction. */
export interface SendEventRequest {
  name: string;
  key?: string | null;
  /** One JSON value (parsed already: parseEventData for text a person gave); undefined or null: none. */
  data?: unknown;
  /** Where the data came from, for the one line that refuses it ("--data", "data"). */
  dataFrom?: string;
  runId?: number | null;
  /** The sender's idempotency id (`--id`). */
  sendId?: string | null;
  sentBy: string;
  channel: SentEventChannel;
}

export interface SentEventsQuery {
  name?: string;
  runId?: number;
  limit?: number;
}

/**
 * Records an event from the outside world. Refused inside an agent step (an agent cannot
 * pretend CI passed); a bad name or key, data over 1 MiB, or an id that is no token is one
 * line (UsageError), nothing recorded; a target run that does not exist is NotFoundError.
 * The same `sendId` again records nothing and returns the first event (`duplicate`).
 */
export async function sendEvent(
  store: Store,
  caller: Caller,
  req: SendEventRequest,
  wake: EventWake = () => {},
): Promise<EventSentJson> {
  refuseAgentSender(caller);
  const { event, duplicate, waiting } = await store.sendEvent(sentEventInput(req));
  for (const runId of waiting) wake(runId, event.id);
  return { event: sentEventJson(event), duplicate, woke: waiting };
}

/** The event a request sends, checked (one-line UsageError) but not recorded: a hook's delivery records it with the delivery. */
export function sentEventInput(req: SendEventRequest): NewSentEvent {
  const name = checkEventWord(req.name, 'name');
  const key = req.key == null ? null : checkEventWord(req.key, 'key');
  const sendId = req.sendId == null ? null : checkSendId(req.sendId);
  const data = req.data ?? null;
  if (data !== null) eventDataJson(data, req.dataFrom ?? 'the data');
  const sentBy = checkedName(req.sentBy, 'the sender');
  return { name, key, data, sentBy, channel: req.channel, runId: req.runId ?? null, sendId };
}

/** Tells the live owner of a run waiting on an event that one came (a wake-up file on this machine; PostgreSQL also notifies). */
export type EventWake = (runId: number, eventId: number) => void;

/** The one refusal of a sender inside an agent step (exit 2), for front ends to say before reading any input. */
export function refuseAgentSender(caller: Caller): void {
  refuseAgent(caller, 'shop event send', 'speaks for the world outside the run');
}

/** Sent events, newest first (name and limit checked as sending checks them). */
export async function listSentEvents(store: Store, query: SentEventsQuery = {}): Promise<SentEventJson[]> {
  const name = query.name === undefined ? undefined : checkEventWord(query.name, 'name');
  return (await store.listSentEvents({ name, runId: query.runId, limit: query.limit })).map(sentEventJson);
}

export function sentEventJson(e: SentEvent): SentEventJson {
  return {
    id: e.id,
    name: e.name,
    key: e.key,
    data: e.data,
    sent_at: new Date(e.sentAt).toISOString(),
    sent_by: e.sentBy,
    channel: e.channel,
    run: e.runId,
    send_id: e.sendId,
  };
}

/**
 * A POST to an event URL: the event it names, sent to its run alone (channel `url`), once. A
 * second POST records nothing and is ExpiredError (410 on the web), as is an expired URL; a
 * forged one is UsageError. `data` is the body, parsed.
 */
export async function sendByEventUrl(
  store: Store,
  clock: Clock,
  caller: Caller,
  token: string,
  data: unknown,
  wake?: EventWake,
): Promise<EventSentJson> {
  const url = await verifyEventUrl(store, clock, token);
  const sent = await sendEvent(
    store,
    caller,
    {
      name: url.name,
      key: url.eventKey,
      data,
      dataFrom: 'the body',
      runId: url.runId,
      sendId: eventUrlSendId(url),
      sentBy: 'event URL',
      channel: 'url',
    },
    wake,
  );
  if (sent.duplicate) {
    throw new ExpiredError(
      `this event URL was used at ${localTime(Date.parse(sent.event.sent_at))} (event ${sent.event.id}); it sends one event, once — nothing new was recorded`,
    );
  }
  return sent;
}
