import { toSentEvent, type Row } from '../rows.js';
import { mayReceive, takenAuditEvent } from '../sent-event-checks.js';
import type {
  EventTake,
  NewSentEvent,
  SendOutcome,
  SentEvent,
  SentEventFilter,
  SentEventStore,
} from '../sent-event-store.js';
import type { EventInput } from '../store.js';
import type { Run } from '../../types.js';
import { WAKE_CHANNEL, type PgDb, type Sql } from './pg-db.js';

/** What sent events need of the PostgreSQL store they are part of: its pool, fencing and trail. */
export interface PgSentEventsHost {
  db: PgDb;
  /** A driver's write in one transaction, under the run row's lock, refused unless `token` owns the run. */
  fenced<T>(token: string, runId: number, fn: (q: Sql, run: Run) => Promise<T>): Promise<T>;
  event(q: Sql, runId: number, e: EventInput): Promise<void>;
  /** Ends a call's wait on the world inside the fenced transaction (its delivery number; null when it no longer waits). */
  endWait(q: Sql, runId: number, key: string, result: unknown, e: EventInput): Promise<number | null>;
}

/** Runs with a call waiting on an event it could take now: the take's own rules (oldest's WHERE), per waiting call. */
const READY_RUNS = `SELECT DISTINCT e.run_id FROM executions e JOIN runs r ON r.id = e.run_id
  WHERE e.status = 'waiting' AND e.wait_kind = 'event' AND EXISTS (
    SELECT 1 FROM sent_events s WHERE s.name = (e.request::jsonb ->> 'name')
      AND ((e.request::jsonb ->> 'key') IS NULL OR s.event_key = (e.request::jsonb ->> 'key'))
      AND s.sent_at >= r.created_at AND (s.run_id IS NULL OR s.run_id = e.run_id)
      AND NOT EXISTS (SELECT 1 FROM event_takes t WHERE t.run_id = e.run_id AND t.event_id = s.id))
  ORDER BY e.run_id`;

const SQL = {
  // Shared: the run cannot end between this look and the event's insert.
  run: 'SELECT status, reason FROM runs WHERE id = $1 FOR SHARE',
  bySendId: 'SELECT * FROM sent_events WHERE send_id = $1',
  // One statement, one round trip: the event, the runs waiting on it now (name and key, its target
  // or any) and their wake-ups, sent when this commits. A racing sender with the same id commits
  // first: this one then inserts nothing (and wakes no one), and reads the first.
  insert: `WITH ins AS (
      INSERT INTO sent_events (name, event_key, data, sent_at, sent_by, channel, run_id, send_id)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (send_id) DO NOTHING RETURNING *),
    w AS (SELECT DISTINCT run_id FROM executions WHERE EXISTS (SELECT 1 FROM ins) AND status = 'waiting' AND wait_kind = 'event'
      AND (request::jsonb ->> 'name') = $1 AND ((request::jsonb ->> 'key') IS NULL OR (request::jsonb ->> 'key') = $2::text)
      AND ($7::bigint IS NULL OR run_id = $7)),
    n AS (SELECT pg_notify($9, 'event:' || run_id) FROM w)
    SELECT ins.*, (SELECT COALESCE(array_agg(run_id ORDER BY run_id), '{}') FROM w) AS waiting, (SELECT count(*) FROM n) AS notified FROM ins`,
  taken:
    'SELECT s.* FROM event_takes t JOIN sent_events s ON s.id = t.event_id WHERE t.run_id = $1 AND t.call_key = $2',
  // The oldest the run may take: sent since it started, for it or for everyone, not taken by it yet.
  oldest: `SELECT * FROM sent_events s WHERE s.name = $1 AND ($2::text IS NULL OR s.event_key = $2) AND s.sent_at >= $3
    AND (s.run_id IS NULL OR s.run_id = $4)
    AND NOT EXISTS (SELECT 1 FROM event_takes t WHERE t.run_id = $4 AND t.event_id = s.id)
    ORDER BY s.id LIMIT 1`,
  take: 'INSERT INTO event_takes (run_id, call_key, event_id, taken_at) VALUES ($1, $2, $3, $4)',
  waits: "SELECT 1 FROM executions WHERE run_id = $1 AND call_key = $2 AND status = 'waiting'",
  ready: READY_RUNS,
} as const;

/**
 * The PostgreSQL adapter's sent events. A take holds the run row's lock (fencing), so two takes
 * of one run go one after the other and never pick the same event; the unique (run, event) pair
 * stands behind that all the same.
 */
export class PgSentEvents implements SentEventStore {
  constructor(private readonly host: PgSentEventsHost) {}

  async sendEvent(e: NewSentEvent): Promise<SendOutcome> {
    return this.host.db.tx((q) => this.sending(q, e));
  }

  /** Inside the caller's transaction (a send, a hook's delivery): the event, or the first one of its sendId. */
  async sending(q: Sql, e: NewSentEvent): Promise<SendOutcome> {
    const first = await this.bySendId(q, e.sendId);
    if (first) return { event: first, duplicate: true, waiting: [] };
    if (e.runId !== null) mayReceive(e.runId, (await q.query<Row>(SQL.run, [e.runId]))[0]);
    const data = e.data == null ? null : JSON.stringify(e.data);
    const params = [
      e.name,
      e.key,
      data,
      Math.round(this.host.db.now()),
      e.sentBy,
      e.channel,
      e.runId,
      e.sendId,
      WAKE_CHANNEL,
    ];
    const [row] = await q.query<Row>(SQL.insert, params);
    if (!row) return { event: (await this.bySendId(q, e.sendId))!, duplicate: true, waiting: [] };
    // The workers holding those runs hear of it when this commits (NOTIFY), on any machine.
    const waiting = (row.waiting as unknown[]).map(Number);
    return { event: toSentEvent(row), duplicate: false, waiting };
  }

  async listSentEvents(filter: SentEventFilter = {}): Promise<SentEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.name !== undefined) {
      params.push(filter.name);
      where.push(`name = $${params.length}`);
    }
    if (filter.runId !== undefined) {
      params.push(filter.runId);
      where.push(
        `(run_id = $${params.length} OR id IN (SELECT event_id FROM event_takes WHERE run_id = $${params.length}))`,
      );
    }
    const limit = filter.limit ? ` LIMIT ${Math.floor(filter.limit)}` : '';
    const sql = `SELECT * FROM sent_events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC${limit}`;
    return (await this.host.db.query<Row>(sql, params)).map(toSentEvent);
  }

  async takeEvent(token: string, take: EventTake): Promise<SentEvent | null> {
    return this.host.fenced(token, take.runId, async (q, run) => {
      const taken = await this.taking(q, run, take);
      if (taken?.fresh) await this.host.event(q, take.runId, takenAuditEvent(take.callKey, taken.event));
      return taken?.event ?? null;
    });
  }

  async endEventWait(
    token: string,
    take: EventTake,
    valueOf: (e: SentEvent) => unknown,
  ): Promise<{ event: SentEvent; delivered: number } | null> {
    return this.host.fenced(token, take.runId, async (q, run) => {
      if (!(await q.query(SQL.waits, [take.runId, take.callKey])).length) return null;
      const taken = await this.taking(q, run, take);
      if (!taken) return null;
      const delivered = await this.host.endWait(
        q,
        take.runId,
        take.callKey,
        valueOf(taken.event),
        takenAuditEvent(take.callKey, taken.event),
      );
      return { event: taken.event, delivered: delivered! };
    });
  }

  async eventReadyRuns(): Promise<number[]> {
    return (await this.host.db.query<Row>(SQL.ready)).map((r) => Number(r.run_id));
  }

  /** Inside a fenced transaction: the event this call took, or the one it takes now (`fresh`), or null. */
  private async taking(q: Sql, run: Run, take: EventTake): Promise<{ event: SentEvent; fresh: boolean } | null> {
    const [before] = await q.query<Row>(SQL.taken, [take.runId, take.callKey]);
    if (before) return { event: toSentEvent(before), fresh: false };
    const [row] = await q.query<Row>(SQL.oldest, [take.name, take.key, run.createdAt, take.runId]);
    if (!row) return null;
    const event = toSentEvent(row);
    await q.query(SQL.take, [take.runId, take.callKey, event.id, Math.round(this.host.db.now())]);
    return { event, fresh: true };
  }

  private async bySendId(q: Sql, sendId: string | null): Promise<SentEvent | null> {
    if (sendId === null) return null;
    const [row] = await q.query<Row>(SQL.bySendId, [sendId]);
    return row ? toSentEvent(row) : null;
  }
}
