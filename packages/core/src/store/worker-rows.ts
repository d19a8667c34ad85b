import type { Row } from './rows.js';
import type { WorkerRow } from './worker-store.js';

/** A workers row (SQLite's or PostgreSQL's: the same column names) → the registry's record. */
export function toWorker(r: Row): WorkerRow {
  return {
    id: String(r.id),
    host: String(r.host),
    pid: Number(r.pid),
    pidStart: r.pid_start == null ? null : String(r.pid_start),
    project: String(r.project),
    maxParallel: r.max_parallel == null ? null : Number(r.max_parallel),
    runsHeld: Number(r.runs_held),
    agents: Number(r.agents),
    startedAt: Number(r.started_at),
    heartbeatAt: Number(r.heartbeat_at),
  };
}
