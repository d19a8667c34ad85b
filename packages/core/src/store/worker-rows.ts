import type { Row } from './rows.js';
import { LEFT_SHOWN, type LeftRun, type WorkerRow } from './worker-store.js';

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
    left: leftRuns(r.left_runs),
    startedAt: Number(r.started_at),
    heartbeatAt: Number(r.heartbeat_at),
  };
}

/** The row's left runs, read defensively: each field bounded, anything else dropped. */
function leftRuns(v: unknown): LeftRun[] {
  if (v == null) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(String(v));
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.slice(0, LEFT_SHOWN).flatMap((e: unknown) => {
    const o = e as Partial<LeftRun> | null;
    if (!o || typeof o.runId !== 'number' || typeof o.spec !== 'string' || typeof o.reason !== 'string') return [];
    return [{ runId: o.runId, spec: o.spec.slice(0, 200), reason: o.reason.slice(0, 600) }];
  });
}
