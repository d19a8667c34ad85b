import type { Run } from '../../types.js';
import { toRun } from '../rows.js';
import type { OwnerClaim } from '../store.js';
import { toWorker } from '../worker-rows.js';
import {
  FORGET_GONE_WORKERS_MS,
  leftColumn,
  type NewWorker,
  type Wake,
  type WorkerLoad,
  type WorkerRow,
} from '../worker-store.js';
import type { PgDb } from './pg-db.js';

const SQL = {
  forgetGone: 'DELETE FROM workers WHERE heartbeat_at < $1',
  register: `INSERT INTO workers (id, host, pid, pid_start, project, max_parallel, runs_held, agents, started_at, heartbeat_at)
    VALUES ($1, $2, $3, $4, $5, $6, 0, 0, $7, $7)`,
  heartbeat:
    'UPDATE workers SET runs_held = $2, agents = $3, left_runs = $5, heartbeat_at = $4 WHERE id = $1 RETURNING id',
  end: 'DELETE FROM workers WHERE id = $1',
  list: 'SELECT * FROM workers ORDER BY started_at, id',
  // A run waiting on the world is not taken: it needs no owner until its time comes.
  // Rows another worker is claiming right now are skipped, not waited on; one that committed its
  // claim meanwhile is checked again under the lock (READ COMMITTED) and is no longer idle.
  claimIdle: `WITH idle AS (
      SELECT id FROM runs WHERE status IN ('running','waiting_human') AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= $1)
        AND NOT EXISTS (SELECT 1 FROM sessions s WHERE s.run_id = runs.id AND s.gz IS NULL AND s.host <> $4)
        AND NOT (id = ANY($8::bigint[]))
      ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED)
    UPDATE runs r SET owner_token = $3, owner_host = $4, owner_pid = $5, owner_pid_start = $6, lease_until = $1::bigint + $7::bigint, updated_at = $1
    FROM idle WHERE r.id = idle.id RETURNING r.*`,
};

/** PostgreSQL's worker registry, idle-run claims and wake-ups (LISTEN shop_wake): the WorkerStore of PgStore. */
export class PgWorkers {
  private readonly listeners = new Set<{ close(): Promise<void> }>();

  constructor(private readonly db: PgDb) {}

  /** The store's now in whole ms: PostgreSQL refuses a fraction (a test clock's offset) in a BIGINT. */
  private now(): number {
    return Math.floor(this.db.now());
  }

  async registerWorker(w: NewWorker): Promise<void> {
    const t = this.now();
    await this.db.tx(async (q) => {
      await q.query(SQL.forgetGone, [t - FORGET_GONE_WORKERS_MS]);
      await q.query(SQL.register, [w.id, w.host, w.pid, w.pidStart, w.project, w.maxParallel, t]);
    });
  }

  async heartbeatWorker(id: string, load: WorkerLoad): Promise<boolean> {
    return (
      (await this.db.query(SQL.heartbeat, [id, load.runsHeld, load.agents, this.now(), leftColumn(load)])).length > 0
    );
  }

  async endWorker(id: string): Promise<void> {
    await this.db.query(SQL.end, [id]);
  }

  async listWorkers(): Promise<WorkerRow[]> {
    return (await this.db.query(SQL.list)).map(toWorker);
  }

  async claimIdleRuns(owner: OwnerClaim, leaseMs: number, limit: number, skip: readonly number[]): Promise<Run[]> {
    const rows = await this.db.query(SQL.claimIdle, [
      this.now(),
      limit,
      owner.token,
      owner.host,
      owner.pid,
      owner.pidStart,
      Math.round(leaseMs),
      [...skip],
    ]);
    return rows.map(toRun).sort((a, b) => a.id - b.id);
  }

  async listen(onWake: (w: Wake) => void): Promise<{ close(): Promise<void> }> {
    const listening = await this.db.listen((payload) =>
      onWake(payload === null ? { kind: 'reconnected', runId: null } : parseWake(payload)),
    );
    const handle = {
      close: async () => {
        this.listeners.delete(handle);
        await listening.close();
      },
    };
    this.listeners.add(handle);
    return handle;
  }

  /** Ends every listener (the store is closing). */
  async close(): Promise<void> {
    await Promise.all([...this.listeners].map((l) => l.close()));
  }
}

/** "<kind>:<runId>" as pg_notify sent it; anything else is still a wake (of an unknown kind). */
export function parseWake(payload: string): Wake {
  const m = /^([a-z_]{1,32}):(\d{1,15})$/.exec(payload);
  return m ? { kind: m[1]!, runId: Number(m[2]) } : { kind: 'unknown', runId: null };
}
