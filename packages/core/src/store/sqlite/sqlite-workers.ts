import type Database from 'better-sqlite3';
import type { Run } from '../../types.js';
import { toRun, type Row } from '../rows.js';
import type { OwnerClaim } from '../store.js';
import { toWorker } from '../worker-rows.js';
import {
  FORGET_GONE_WORKERS_MS,
  leftColumn,
  type NewWorker,
  type WorkerLoad,
  type WorkerRow,
} from '../worker-store.js';
import { q, type Tx } from './sqlite-prepared.js';

// SQLite's worker registry: each function one statement (or the caller's immediate `tx`).

export function registerWorker(db: Database.Database, tx: Tx, now: number, w: NewWorker): void {
  tx(() => {
    q(db, 'DELETE FROM workers WHERE heartbeat_at < ?').run(now - FORGET_GONE_WORKERS_MS);
    q(
      db,
      `INSERT INTO workers (id, host, pid, pid_start, project, max_parallel, runs_held, agents, started_at, heartbeat_at)
      VALUES (@id, @host, @pid, @pidStart, @project, @maxParallel, 0, 0, @now, @now)`,
    ).run({ ...w, now });
  });
}

export function heartbeatWorker(db: Database.Database, now: number, id: string, load: WorkerLoad): boolean {
  return (
    q(db, 'UPDATE workers SET runs_held = ?, agents = ?, left_runs = ?, heartbeat_at = ? WHERE id = ?').run(
      load.runsHeld,
      load.agents,
      leftColumn(load),
      now,
      id,
    ).changes > 0
  );
}

export function endWorker(db: Database.Database, id: string): void {
  q(db, 'DELETE FROM workers WHERE id = ?').run(id);
}

export function listWorkers(db: Database.Database): WorkerRow[] {
  return (q(db, 'SELECT * FROM workers ORDER BY started_at, id').all() as Row[]).map(toWorker);
}

/**
 * One immediate transaction: SQLite has one writer, so two workers' passes never take the same run.
 * A run waiting on the world is not taken: it needs no owner until its time comes (then the pass claims it).
 */
export function claimIdleRuns(
  db: Database.Database,
  tx: Tx,
  now: () => number,
  owner: OwnerClaim,
  leaseMs: number,
  limit: number,
  skip: readonly number[] = [],
): Run[] {
  const skipped = JSON.stringify(skip);
  // A pass with nothing idle (the usual one) reads, without taking the write lock; the transaction checks again.
  if (
    !q(
      db,
      `SELECT 1 FROM runs WHERE status IN ('running','waiting_human')
    AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= ?)
    AND id NOT IN (SELECT value FROM json_each(?)) LIMIT 1`,
    ).get(now(), skipped)
  )
    return [];
  return tx(() => {
    const t = now();
    // A run whose agent session lives only on another host (over the store's cap) is that host's to take.
    const ids = q(
      db,
      `SELECT id FROM runs WHERE status IN ('running','waiting_human')
      AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= ?)
      AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.run_id = runs.id AND s.gz IS NULL AND s.host <> ?)
      AND id NOT IN (SELECT value FROM json_each(?))
      ORDER BY id LIMIT ?`,
    )
      .pluck()
      .all(t, owner.host, skipped, limit) as number[];
    const take = q(
      db,
      `UPDATE runs SET owner_token = @token, owner_host = @host, owner_pid = @pid, owner_pid_start = @pidStart,
      lease_until = @leaseUntil, updated_at = @t WHERE id = @id`,
    );
    const read = q(db, 'SELECT * FROM runs WHERE id = ?');
    return ids.map((id) => {
      take.run({ ...owner, leaseUntil: t + leaseMs, t, id });
      return toRun(read.get(id) as Row);
    });
  });
}
