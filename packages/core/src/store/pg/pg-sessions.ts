import { LostOwnershipError } from '../../errors.js';
import type { Row } from '../rows.js';
import type { KeptSession, SessionInfo, SessionStore } from '../session-store.js';
import { toKeptSession, toSessionInfo } from '../session-rows.js';
import type { EventInput } from '../store.js';
import type { PgDb, Sql } from './pg-db.js';
import { notFound } from './pg-steps.js';
import { W } from './pg-write-sql.js';

/** What the sessions need of the PostgreSQL store they are part of: its pool, clock and trail. */
export interface PgSessionsHost {
  db: PgDb;
  now(): number;
  event(q: Sql, runId: number, e: EventInput): Promise<void>;
}

const SQL = {
  holdToken: 'SELECT hold_token FROM executions WHERE run_id = $1 AND call_key = $2',
  save: `INSERT INTO sessions (run_id, session_id, call_key, host, bytes, sha256, gz, saved_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
    ON CONFLICT (run_id, session_id) DO UPDATE SET call_key = excluded.call_key, host = excluded.host, bytes = excluded.bytes,
      sha256 = excluded.sha256, gz = excluded.gz, saved_at = excluded.saved_at`,
  load: 'SELECT * FROM sessions WHERE run_id = $1 AND session_id = $2',
  list: 'SELECT run_id, session_id, call_key, host, bytes, sha256, octet_length(gz) AS gz_bytes, saved_at FROM sessions WHERE run_id = $1 ORDER BY saved_at, session_id',
  // Its own attempt only (the signal path), while the call takes reports; the run row is locked first.
  takesReports: `SELECT 1 FROM executions WHERE run_id = $1 AND call_key = $2 AND signal_path = $3
    AND (status = 'running' OR (status = 'waiting_human' AND hold_kind = 'continue'))`,
  report: `INSERT INTO reports (run_id, call_key, signal_path, body, reported_at) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (run_id, call_key) DO UPDATE SET signal_path = excluded.signal_path, body = excluded.body, reported_at = excluded.reported_at`,
  getReport: 'SELECT body FROM reports WHERE run_id = $1 AND call_key = $2 AND signal_path = $3',
  clearReport: 'DELETE FROM reports WHERE run_id = $1 AND call_key = $2',
} as const;

const ENDED = ['completed', 'stuck', 'failed'];

/** The PostgreSQL adapter's sessions and reports: each write one transaction, the run row locked first (as every write). */
export class PgSessions implements SessionStore {
  constructor(private readonly host: PgSessionsHost) {}

  async saveSession(token: string, s: Omit<KeptSession, 'savedAt'>, event?: EventInput): Promise<void> {
    await this.host.db.tx(async (q) => {
      const [run] = await q.query(W.lockRun, [s.runId]);
      if (!run) throw notFound(s.runId);
      if (run.owner_token !== token) {
        const [call] = await q.query(SQL.holdToken, [s.runId, s.key]);
        if (!call || call.hold_token !== token) throw new LostOwnershipError(s.runId);
      }
      await q.query(SQL.save, [s.runId, s.sessionId, s.key, s.host, s.bytes, s.sha256, s.gz, this.host.now()]);
      if (event) await this.host.event(q, s.runId, event);
    });
  }

  async loadSession(runId: number, sessionId: string): Promise<KeptSession | null> {
    const [row] = await this.host.db.query<Row>(SQL.load, [runId, sessionId]);
    return row ? toKeptSession(row) : null;
  }

  async listSessions(runId: number): Promise<SessionInfo[]> {
    return (await this.host.db.query<Row>(SQL.list, [runId])).map(toSessionInfo);
  }

  async recordReport(runId: number, key: string, signalPath: string, body: string): Promise<boolean> {
    return this.host.db.tx(async (q) => {
      const [run] = await q.query(W.lockRun, [runId]);
      if (!run || ENDED.includes(String(run.status))) return false;
      if (!(await q.query(SQL.takesReports, [runId, key, signalPath])).length) return false;
      await q.query(SQL.report, [runId, key, signalPath, body, this.host.now()]);
      return true;
    });
  }

  async getReport(runId: number, key: string, signalPath: string): Promise<string | null> {
    const [row] = await this.host.db.query<Row>(SQL.getReport, [runId, key, signalPath]);
    return row ? String(row.body) : null;
  }
}

/** Inside the store's holdSession: a report made before a person opened the session does not count. */
export async function clearReport(q: Sql, runId: number, key: string): Promise<void> {
  await q.query(SQL.clearReport, [runId, key]);
}
