import type Database from 'better-sqlite3';
import { LostOwnershipError, RunNotFoundError } from '../../errors.js';
import type { Row } from '../rows.js';
import type { KeptSession, SessionInfo, SessionStore } from '../session-store.js';
import { toKeptSession, toSessionInfo } from '../session-rows.js';
import type { EventInput } from '../store.js';

/** What the sessions need of the SQLite store they are part of: its transactions, clock and trail. */
export interface SessionsHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  event(runId: number, e: EventInput): void;
}

const SQL = {
  authority: `SELECT r.owner_token, e.hold_token FROM runs r LEFT JOIN executions e ON e.run_id = r.id AND e.call_key = @key WHERE r.id = @runId`,
  save: `INSERT INTO sessions (run_id, session_id, call_key, host, bytes, sha256, gz, saved_at) VALUES (@runId, @sessionId, @key, @host, @bytes, @sha256, @gz, @t)
    ON CONFLICT (run_id, session_id) DO UPDATE SET call_key = excluded.call_key, host = excluded.host, bytes = excluded.bytes,
      sha256 = excluded.sha256, gz = excluded.gz, saved_at = excluded.saved_at`,
  load: 'SELECT * FROM sessions WHERE run_id = ? AND session_id = ?',
  list: 'SELECT run_id, session_id, call_key, host, bytes, sha256, length(gz) AS gz_bytes, saved_at FROM sessions WHERE run_id = ? ORDER BY saved_at, session_id',
  // Its own attempt only (the signal path), while the call takes reports.
  takesReports: `SELECT 1 FROM executions e JOIN runs r ON r.id = e.run_id WHERE e.run_id = @runId AND e.call_key = @key AND e.signal_path = @path
    AND r.status NOT IN ('completed','stuck','failed') AND (e.status = 'running' OR (e.status = 'waiting_human' AND e.hold_kind = 'continue'))`,
  report: `INSERT INTO reports (run_id, call_key, signal_path, body, reported_at) VALUES (@runId, @key, @path, @body, @t)
    ON CONFLICT (run_id, call_key) DO UPDATE SET signal_path = excluded.signal_path, body = excluded.body, reported_at = excluded.reported_at`,
  getReport: 'SELECT body FROM reports WHERE run_id = ? AND call_key = ? AND signal_path = ?',
  clearReport: 'DELETE FROM reports WHERE run_id = ? AND call_key = ?',
} as const;

/** The SQLite adapter's sessions and reports: every write one immediate transaction of the store. */
export class SqliteSessions implements SessionStore {
  private readonly stmt: Record<keyof typeof SQL, Database.Statement>;

  constructor(private readonly host: SessionsHost) {
    this.stmt = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, host.db.prepare(sql)])) as Record<
      keyof typeof SQL,
      Database.Statement
    >;
  }

  async saveSession(token: string, s: Omit<KeptSession, 'savedAt'>, event?: EventInput): Promise<void> {
    this.host.tx(() => {
      const who = this.stmt.authority.get({ runId: s.runId, key: s.key }) as Row | undefined;
      if (!who) throw new RunNotFoundError(s.runId);
      if (who.owner_token !== token && who.hold_token !== token) throw new LostOwnershipError(s.runId);
      this.stmt.save.run({ ...s, t: this.host.now() });
      if (event) this.host.event(s.runId, event);
    });
  }

  async loadSession(runId: number, sessionId: string): Promise<KeptSession | null> {
    const row = this.stmt.load.get(runId, sessionId) as Row | undefined;
    return row ? toKeptSession(row) : null;
  }

  async listSessions(runId: number): Promise<SessionInfo[]> {
    return (this.stmt.list.all(runId) as Row[]).map(toSessionInfo);
  }

  async recordReport(runId: number, key: string, signalPath: string, body: string): Promise<boolean> {
    return this.host.tx(() => {
      if (!this.stmt.takesReports.get({ runId, key, path: signalPath })) return false;
      this.stmt.report.run({ runId, key, path: signalPath, body, t: this.host.now() });
      return true;
    });
  }

  async getReport(runId: number, key: string, signalPath: string): Promise<string | null> {
    const row = this.stmt.getReport.get(runId, key, signalPath) as Row | undefined;
    return row ? String(row.body) : null;
  }

  /** Inside the store's holdSession: a report made before a person opened the session does not count. */
  clearReport(runId: number, key: string): void {
    this.stmt.clearReport.run(runId, key);
  }
}
