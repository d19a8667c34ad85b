import type { Row } from './rows.js';
import type { KeptSession, SessionInfo } from './session-store.js';

/** A sessions row (SQLite's or PostgreSQL's: the same column names) → a kept session. */
export function toKeptSession(row: Row): KeptSession {
  return {
    runId: Number(row.run_id),
    key: String(row.call_key),
    sessionId: String(row.session_id),
    host: String(row.host),
    bytes: Number(row.bytes),
    sha256: String(row.sha256),
    gz: row.gz == null ? null : Buffer.from(row.gz as Uint8Array),
    savedAt: Number(row.saved_at),
  };
}

/** A sessions row read without its body (`gz_bytes` its length) → what a listing shows. */
export function toSessionInfo(row: Row): SessionInfo {
  return {
    runId: Number(row.run_id),
    key: String(row.call_key),
    sessionId: String(row.session_id),
    host: String(row.host),
    bytes: Number(row.bytes),
    sha256: String(row.sha256),
    gzBytes: row.gz_bytes == null ? null : Number(row.gz_bytes),
    savedAt: Number(row.saved_at),
  };
}
