import type Database from 'better-sqlite3';
import { toSentEvent, type Row } from '../rows.js';
import type {
  EventTake,
  NewSentEvent,
  SendOutcome,
  SentEvent,
  SentEventFilter,
  SentEventStore,
} from '../sent-event-store.js';
import { mayReceive, takenAuditEvent } from '../sent-event-checks.js';
import type { EventInput } from '../store.js';

/** What sent events need of the SQLite store they are part of: its transactions, clock, fencing and trail. */
export interface SentEventsHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  fenced<T>(token: string, runId: number, fn: () => T): T;
  event(runId: number, e: EventInput): void;
  /** Ends a call's wait on the world inside the fenced transaction (its delivery number; null when it no longer waits). */
  endWait(runId: number, key: string, result: unknown, e: EventInput): number | null;
}

/** Runs with a call waiting on an event it could take now: the take's own rules (oldest's WHERE), per waiting call. */
const READY_RUNS = `SELECT DISTINCT e.run_id FROM executions e JOIN runs r ON r.id = e.run_id
  WHERE e.status = 'waiting' AND e.wait_kind = 'event' AND EXISTS (
    SELECT 1 FROM sent_events s WHERE s.name = json_extract(e.request, '$.name')
      AND (json_extract(e.request, '$.key') IS NULL OR s.event_key = json_extract(e.request, '$.key'))
      AND s.sent_at >= r.created_at AND (s.run_id IS NULL OR s.run_id = e.run_id)
      AND NOT EXISTS (SELECT 1 FROM event_takes t WHERE t.run_id = e.run_id AND t.event_id = s.id))
  ORDER BY e.run_id`;

const SQL = {
  run: 'SELECT status, reason, created_at FROM runs WHERE id = ?',
  bySendId: 'SELECT * FROM sent_events WHERE send_id = ?',
  insert: `INSERT INTO sent_events (name, event_key, data, sent_at, sent_by, channel, run_id, send_id)
    VALUES (@name, @key, @data, @t, @sentBy, @channel, @runId, @sendId) RETURNING *`,
  taken: 'SELECT s.* FROM event_takes t JOIN sent_events s ON s.id = t.event_id WHERE t.run_id = ? AND t.call_key = ?',
  // The oldest the run may take: sent since it started, for it or for everyone, not taken by it yet.
  oldest: `SELECT * FROM sent_events s WHERE s.name = @name AND (@key IS NULL OR s.event_key = @key) AND s.sent_at >= @since
    AND (s.run_id IS NULL OR s.run_id = @runId)
    AND NOT EXISTS (SELECT 1 FROM event_takes t WHERE t.run_id = @runId AND t.event_id = s.id)
    ORDER BY s.id LIMIT 1`,
  waits: "SELECT 1 FROM executions WHERE run_id = ? AND call_key = ? AND status = 'waiting'",
  take: 'INSERT INTO event_takes (run_id, call_key, event_id, taken_at) VALUES (?, ?, ?, ?)',
  // Calls waiting on an event of this name (and key) now, of the run it is sent to or any.
  waiters: `SELECT DISTINCT run_id FROM executions WHERE status = 'waiting' AND wait_kind = 'event'
    AND json_extract(request, '$.name') = @name AND (json_extract(request, '$.key') IS NULL OR json_extract(request, '$.key') = @key)
    AND (@runId IS NULL OR run_id = @runId) ORDER BY run_id`,
  ready: READY_RUNS,
} as const;

/** The SQLite adapter's sent events: every write one immediate transaction of the store. */
export class SqliteSentEvents implements SentEventStore {
  private readonly stmt: Record<keyof typeof SQL, Database.Statement>;

  constructor(private readonly host: SentEventsHost) {
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, host.db.prepare(sql)])) as Record<
      keyof typeof SQL,
      Database.Statement
    >;
  }

  async sendEvent(e: NewSentEvent): Promise<SendOutcome> {
    return this.host.tx(() => this.sending(e));
  }

  /** Inside the caller's transaction (a send, a hook's delivery): the event, or the first one of its sendId. */
  sending(e: NewSentEvent): SendOutcome {
    const first = e.sendId === null ? undefined : (this.stmt.bySendId.get(e.sendId) as Row | undefined);
    if (first) return { event: toSentEvent(first), duplicate: true, waiting: [] };
    if (e.runId !== null) mayReceive(e.runId, this.stmt.run.get(e.runId) as Row | undefined);
    const row = this.stmt.insert.get({
      ...e,
      data: e.data == null ? null : JSON.stringify(e.data),
      t: this.host.now(),
    }) as Row;
    const waiting = (this.stmt.waiters.all({ name: e.name, key: e.key, runId: e.runId }) as Row[]).map((r) =>
      Number(r.run_id),
    );
    return { event: toSentEvent(row), duplicate: false, waiting };
  }

  async listSentEvents(filter: SentEventFilter = {}): Promise<SentEvent[]> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.name !== undefined) {
      where.push('name = ?');
      params.push(filter.name);
    }
    if (filter.runId !== undefined) {
      where.push('(run_id = ? OR id IN (SELECT event_id FROM event_takes WHERE run_id = ?))');
      params.push(filter.runId, filter.runId);
    }
    const limit = filter.limit ? ` LIMIT ${Math.floor(filter.limit)}` : '';
    const sql = `SELECT * FROM sent_events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC${limit}`;
    return (this.host.db.prepare(sql).all(...params) as Row[]).map(toSentEvent);
  }

  async takeEvent(token: string, take: EventTake): Promise<SentEvent | null> {
    return this.host.fenced(token, take.runId, () => {
      const taken = this.taking(take);
      if (taken?.fresh) this.host.event(take.runId, takenAuditEvent(take.callKey, taken.event));
      return taken?.event ?? null;
    });
  }

  async endEventWait(
    token: string,
    take: EventTake,
    valueOf: (e: SentEvent) => unknown,
  ): Promise<{ event: SentEvent; delivered: number } | null> {
    return this.host.fenced(token, take.runId, () => {
      if (!this.stmt.waits.get(take.runId, take.callKey)) return null;
      const taken = this.taking(take);
      if (!taken) return null;
      const delivered = this.host.endWait(
        take.runId,
        take.callKey,
        valueOf(taken.event),
        takenAuditEvent(take.callKey, taken.event),
      )!;
      return { event: taken.event, delivered };
    });
  }

  async eventReadyRuns(): Promise<number[]> {
    return (this.stmt.ready.all() as Row[]).map((r) => Number(r.run_id));
  }

  /** Inside a fenced transaction: the event this call took, or the one it takes now (`fresh`), or null. */
  private taking(take: EventTake): { event: SentEvent; fresh: boolean } | null {
    const before = this.stmt.taken.get(take.runId, take.callKey) as Row | undefined;
    if (before) return { event: toSentEvent(before), fresh: false };
    const run = this.stmt.run.get(take.runId) as Row;
    const row = this.stmt.oldest.get({
      name: take.name,
      key: take.key,
      since: Number(run.created_at),
      runId: take.runId,
    }) as Row | undefined;
    if (!row) return null;
    const event = toSentEvent(row);
    this.stmt.take.run(take.runId, take.callKey, event.id, this.host.now());
    return { event, fresh: true };
  }
}
