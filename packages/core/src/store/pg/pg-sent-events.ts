import { toSentEvent, type Row } from '../rows.js';
import { mayReceive, takenAuditEvent } from '../sent-event-checks.js';
import type { EventTake, NewSentEvent, SentEvent, SentEventFilter, SentEventStore } from '../sent-event-store.js';
import type { EventInput } from '../store.js';
import type { Run } from '../../types.js';
import type { PgDb, Sql } from './pg-db.js';

/** What sent events need of the PostgreSQL store they are part of: its pool, fencing and trail. */
export interface PgSentEventsHost {
  db: PgDb;
  /** A driver's write in one transaction, under the run row's lock, refused unless `token` owns the run. */
  fenced<T>(token: string, runId: number, fn: (q: Sql, run: Run) => Promise<T>): Promise<T>;
  event(q: Sql, runId: number, e: EventInput): Promise<void>;
}

const SQL = {
  // Shared: the run cannot end between this look and the event's insert.
  run: 'SELECT status, reason FROM runs WHERE id = $1 FOR SHARE',
  bySendId: 'SELECT * FROM sent_events WHERE send_id = $1',
  // A racing sender with the same id commits first: this one then inserts nothing, and reads the first.
  insert: `INSERT INTO sent_events (name, event_key, data, sent_at, sent_by, channel, run_id, send_id)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (send_id) DO NOTHING RETURNING *`,
  taken: 'SELECT s.* FROM event_takes t JOIN sent_events s ON s.id = t.event_id WHERE t.run_id = $1 AND t.call_key = $2',
  // The oldest the run may take: sent since it started, for it or for everyone, not taken by it yet.
  oldest: `SELECT * FROM sent_events s WHERE s.name = $1 AND ($2::text IS NULL OR s.event_key = $2) AND s.sent_at >= $3
    AND (s.run_id IS NULL OR s.run_id = $4)
    AND NOT EXISTS (SELECT 1 FROM event_takes t WHERE t.run_id = $4 AND t.event_id = s.id)
    ORDER BY s.id LIMIT 1`,
  take: 'INSERT INTO event_takes (run_id, call_key, event_id, taken_at) VALUES ($1, $2, $3, $4)',
} as const;

/**
 * The PostgreSQL adapter's sent events. A take holds the run row's lock (fencing), so two takes
 * of one run go one after the other and never pick the same event; the unique (run, event) pair
 * stands behind that all the same.
 */
export class PgSentEvents implements SentEventStore {
  constructor(private readonly host: PgSentEventsHost) {}

  async sendEvent(e: NewSentEvent): Promise<{ event: SentEvent; duplicate: boolean }> {
    return this.host.db.tx(async (q) => {
      const first = await this.bySendId(q, e.sendId);
      if (first) return { event: first, duplicate: true };
      if (e.runId !== null) mayReceive(e.runId, (await q.query<Row>(SQL.run, [e.runId]))[0]);
      const data = e.data == null ? null : JSON.stringify(e.data);
      const [row] = await q.query<Row>(SQL.insert, [e.name, e.key, data, Math.round(this.host.db.now()), e.sentBy, e.channel, e.runId, e.sendId]);
      if (row) return { event: toSentEvent(row), duplicate: false };
      return { event: (await this.bySendId(q, e.sendId))!, duplicate: true };
    });
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
      where.push(`(run_id = $${params.length} OR id IN (SELECT event_id FROM event_takes WHERE run_id = $${params.length}))`);
    }
    const limit = filter.limit ? ` LIMIT ${Math.floor(filter.limit)}` : '';
    const sql = `SELECT * FROM sent_events${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY id DESC${limit}`;
    return (await this.host.db.query<Row>(sql, params)).map(toSentEvent);
  }

  async takeEvent(token: string, take: EventTake): Promise<SentEvent | null> {
    return this.host.fenced(token, take.runId, async (q, run) => {
      const [before] = await q.query<Row>(SQL.taken, [take.runId, take.callKey]);
      if (before) return toSentEvent(before);
      const [row] = await q.query<Row>(SQL.oldest, [take.name, take.key, run.createdAt, take.runId]);
      if (!row) return null;
      const event = toSentEvent(row);
      await q.query(SQL.take, [take.runId, take.callKey, event.id, Math.round(this.host.db.now())]);
      await this.host.event(q, take.runId, takenAuditEvent(take.callKey, event));
      return event;
    });
  }

  private async bySendId(q: Sql, sendId: string | null): Promise<SentEvent | null> {
    if (sendId === null) return null;
    const [row] = await q.query<Row>(SQL.bySendId, [sendId]);
    return row ? toSentEvent(row) : null;
  }
}
