import type Database from 'better-sqlite3';
import type { Run } from '../types.js';
import { toRun, type Row } from './rows.js';
import type { OwnerClaim } from './store.js';
import { toWorker } from './worker-rows.js';
import { FORGET_GONE_WORKERS_MS, type NewWorker, type WorkerLoad, type WorkerRow } from './worker-store.js';

/** SQLite's worker registry: each function one statement (or the caller's immediate `tx`). */
type Tx = <T>(fn: () => T) => T;

export function registerWorker(db: Database.Database, tx: Tx, now: number, w: NewWorker): void {
  tx(() => {
    db.prepare('DELETE FROM workers WHERE heartbeat_at < ?').run(now - FORGET_GONE_WORKERS_MS);
    db.prepare(`INSERT INTO workers (id, host, pid, pid_start, project, max_parallel, runs_held, agents, started_at, heartbeat_at)
      VALUES (@id, @host, @pid, @pidStart, @project, @maxParallel, 0, 0, @now, @now)`).run({ ...w, now });
  });
}

export function heartbeatWorker(db: Database.Database, now: number, id: string, load: WorkerLoad): boolean {
  return db.prepare('UPDATE workers SET runs_held = ?, agents = ?, heartbeat_at = ? WHERE id = ?').run(load.runsHeld, load.agents, now, id).changes > 0;
}

export function endWorker(db: Database.Database, id: string): void {
  db.prepare('DELETE FROM workers WHERE id = ?').run(id);
}

export function listWorkers(db: Database.Database): WorkerRow[] {
  return (db.prepare('SELECT * FROM workers ORDER BY started_at, id').all() as Row[]).map(toWorker);
}

/** One immediate transaction: SQLite has one writer, so two workers' passes never take the same run. */
export function claimIdleRuns(db: Database.Database, tx: Tx, now: () => number, owner: OwnerClaim, leaseMs: number, limit: number): Run[] {
  return tx(() => {
    const t = now();
    const ids = db.prepare(`SELECT id FROM runs WHERE status IN ('running','waiting_human')
      AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= ?) ORDER BY id LIMIT ?`).pluck().all(t, limit) as number[];
    const take = db.prepare(`UPDATE runs SET owner_token = @token, owner_host = @host, owner_pid = @pid, owner_pid_start = @pidStart,
      lease_until = @leaseUntil, updated_at = @t WHERE id = @id`);
    const read = db.prepare('SELECT * FROM runs WHERE id = ?');
    return ids.map((id) => {
      take.run({ ...owner, leaseUntil: t + leaseMs, t, id });
      return toRun(read.get(id) as Row);
    });
  });
}
