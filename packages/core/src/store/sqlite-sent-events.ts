import type Database from 'better-sqlite3';
import { toSentEvent, type Row } from './rows.js';
import type { EventTake, NewSentEvent, SentEvent, SentEventFilter, SentEventStore } from './sent-event-store.js';
import { mayReceive, takenAuditEvent } from './sent-event-checks.js';
import type { EventInput } from './store.js';

/** What sent events need of the SQLite store they are part of: its transactions, clock, fencing and trail. */
export interface SentEventsHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  fenced<T>(token: string, runId: number, fn: () => T): T;
  event(runId: number, e: EventInput): void;
}

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
  take: 'INSERT INTO event_takes (run_id, call_key, event_id, taken_at) VALUES (?, ?, ?, ?)',
} as const;

/** The SQLite adapter's sent events: every write one immediate transaction of the store. */
export class SqliteSentEvents implements SentEventStore {
  private readonly stmt: Record<keyof typeof SQL, Database.Statement>;

  constructor(private readonly host: SentEventsHost) {
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, host.db.prepare(sql)])) as Record<keyof typeof SQL, Database.Statement>;
  }

  async sendEvent(e: NewSentEvent): Promise<{ event: SentEvent; duplicate: boolean }> {
    return this.host.tx(() => {
      const first = e.sendId === null ? undefined : (this.stmt.bySendId.get(e.sendId) as Row | undefined);
      if (first) return { event: toSentEvent(first), duplicate: true };
      if (e.runId !== null) mayReceive(e.runId, this.stmt.run.get(e.runId) as Row | undefined);
      const row = this.stmt.insert.get({ ...e, data: e.data == null ? null : JSON.stringify(e.data), t: this.host.now() }) as Row;
      return { event: toSentEvent(row), duplicate: false };
    });
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
      const before = this.stmt.taken.get(take.runId, take.callKey) as Row | undefined;
      if (before) return toSentEvent(before);
      const run = this.stmt.run.get(take.runId) as Row;
      const row = this.stmt.oldest.get({ name: take.name, key: take.key, since: Number(run.created_at), runId: take.runId }) as Row | undefined;
      if (!row) return null;
      const event = toSentEvent(row);
      this.stmt.take.run(take.runId, take.callKey, event.id, this.host.now());
      this.host.event(take.runId, takenAuditEvent(take.callKey, event));
      return event;
    });
  }
}
