import type Database from 'better-sqlite3';
import type { Row } from './rows.js';
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
