import type { Channel, Run } from '../../types.js';
import {
  dequeuedEvent,
  groupOf,
  heldBy,
  hasRoom,
  QUEUE_SCAN,
  queuedEventData,
  startChannel,
  takenEvent,
  type NewQueuedRun,
  type QueueStore,
} from '../queue-store.js';
import { toRun, type Row } from '../rows.js';
import type { OwnerClaim } from '../store.js';
import type { PgDb, Sql } from './pg-db.js';
import { event, whole } from './pg-steps.js';

/** Serializes the workers' claims on the queue: a claim counts a group's driven runs and takes, and no other claim may count between. */
const QUEUE_LOCK = 0x5ec0de17;
const UNIQUE_VIOLATION = '23505';

const SQL = {
  bySendId: 'SELECT * FROM runs WHERE start_id = $1',
  // A racing start with the same id commits first: this one inserts nothing, and reads the first.
  insert: `INSERT INTO runs (spec, workflow_path, workflow_hash, prompt, status, workspace, branch, seed, rules,
      priority, queue_key, concurrency, trigger_json, start_id, owner_token, owner_host, owner_pid, owner_pid_start,
      lease_until, created_at, updated_at)
    VALUES ($1, $2, $3, $4, 'queued', $5, $6, $7, $8, $9, $10, $11, $12, $13, $15, $16, $17, $18, $19, $14, $14)
    ON CONFLICT (start_id) WHERE start_id IS NOT NULL DO NOTHING RETURNING *`,
  // Not one a foreground shop run holds while it waits for its turn (its lease live).
  candidates: `SELECT * FROM runs WHERE status = 'queued' AND stop_at IS NULL
    AND (owner_token IS NULL OR lease_until <= $1) ORDER BY priority DESC, id LIMIT ${QUEUE_SCAN}`,
  one: `SELECT * FROM runs WHERE status = 'queued' AND stop_at IS NULL AND id = $1
    AND (owner_token IS NULL OR owner_token = $2 OR lease_until <= $3)`,
  anyQueued: `SELECT 1 FROM runs WHERE status = 'queued' AND stop_at IS NULL LIMIT 1`,
  driven: `SELECT COUNT(*)::int AS n FROM runs WHERE spec = $1 AND queue_key IS NOT DISTINCT FROM $2
    AND status IN ('running','waiting','waiting_human')`,
  // A foreground run waits its turn: the queued runs of its group ahead of it count as taken.
  ahead: `SELECT COUNT(*)::int AS n FROM runs WHERE status = 'queued' AND stop_at IS NULL AND spec = $1
    AND queue_key IS NOT DISTINCT FROM $2 AND (priority > $3 OR (priority = $3 AND id < $4))`,
  // $1 id, $2 token, $3 host, $4 pid, $5 pidStart, $6 t, $7 leaseMs
  take: `UPDATE runs SET status = 'running', owner_token = $2, owner_host = $3, owner_pid = $4, owner_pid_start = $5,
      lease_until = $6::bigint + $7::bigint, updated_at = $6 WHERE id = $1 AND status = 'queued' RETURNING *`,
  priority: `UPDATE runs SET priority = $2, updated_at = $3 WHERE id = $1 AND status = 'queued' RETURNING id`,
  dequeue: `UPDATE runs SET status = 'stuck', reason = $2, stop_reason = $2, stop_by = $3, stop_at = $4,
      ended_at = $4, updated_at = $4 WHERE id = $1 AND status = 'queued' RETURNING id`,
  requeue: `UPDATE runs SET status = 'queued', reason = NULL, ended_at = NULL, owner_token = NULL, owner_host = NULL,
      owner_pid = NULL, owner_pid_start = NULL, lease_until = NULL, updated_at = $2
    WHERE id = $1 AND held IS NULL AND stop_at IS NULL
      AND (status = 'failed' OR (status = 'running' AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= $2))) RETURNING id`,
  queued: `SELECT * FROM runs WHERE status = 'queued' ORDER BY priority DESC, id LIMIT $1`,
} as const;

/**
 * A queued run's row and its first event, inside the caller's transaction (a schedule's slot
 * queues one too): the run as it stands after, or null when its start id named a run already.
 */
export async function insertQueued(
  q: Sql,
  input: NewQueuedRun,
  t: number,
  extra: Record<string, unknown> = {},
): Promise<Row | null> {
  const held = heldBy(input, t);
  const [row] = await q.query(SQL.insert, [
    input.spec,
    input.workflowPath,
    input.workflowHash,
    input.prompt,
    input.workspace,
    input.branch,
    input.seed,
    input.rules ? JSON.stringify(input.rules) : null,
    input.priority,
    input.queueKey,
    input.concurrency,
    JSON.stringify(input.trigger),
    input.startId,
    t,
    held.token,
    held.host,
    held.pid,
    held.pidStart,
    held.leaseUntil,
  ]);
  if (!row) return null;
  const data = { ...queuedEventData(input), ...extra };
  // Its first event wakes every worker (LISTEN shop_wake) when this commits.
  await event(
    q,
    Number(row.id),
    t,
    { type: 'run_started', actor: input.actor, channel: startChannel(input.trigger), data },
    'queued',
  );
  const [again] = await q.query('SELECT * FROM runs WHERE id = $1', [row.id]);
  return again!;
}

/** The PostgreSQL adapter's queue: claims take turns on an advisory lock; a new run wakes every worker (NOTIFY). */
export class PgQueue implements QueueStore {
  constructor(
    private readonly db: PgDb,
    private readonly now: () => number,
  ) {}

  async queueRun(input: NewQueuedRun): Promise<{ run: Run; created: boolean }> {
    if (input.startId !== null) {
      const [before] = await this.db.query(SQL.bySendId, [input.startId]);
      if (before) return { run: toRun(before), created: false };
    }
    return this.db.tx(async (q) => {
      const run = await this.insertQueued(q, input);
      if (run) return { run, created: true };
      const [first] = await q.query(SQL.bySendId, [input.startId]);
      if (!first) throw Object.assign(new Error('a run with this id is being started'), { code: UNIQUE_VIOLATION });
      return { run: toRun(first), created: false };
    });
  }

  /**
   * Inside the caller's transaction (a start, a hook's delivery): the queued run's row and first
   * event; null when a racing start with the same startId inserted it first.
   */
  async insertQueued(q: Sql, input: NewQueuedRun, extra: Record<string, unknown> = {}): Promise<Run | null> {
    const row = await insertQueued(q, input, Math.round(this.now()), extra);
    return row ? toRun(row) : null;
  }

  async claimQueuedRuns(
    owner: OwnerClaim,
    leaseMs: number,
    limit: number,
    only?: number,
    accept?: (run: Run) => boolean,
  ): Promise<Run[]> {
    if (limit <= 0) return [];
    if (only === undefined && !(await this.db.query(SQL.anyQueued)).length) return [];
    return this.db.tx(async (q) => {
      await q.query('SELECT pg_advisory_xact_lock($1)', [QUEUE_LOCK]);
      const t = Math.round(this.now());
      const rows: Row[] =
        only === undefined ? await q.query(SQL.candidates, [t]) : await q.query(SQL.one, [only, owner.token, t]);
      const driven = new Map<string, number>();
      const took: Run[] = [];
      for (const run of rows.map(toRun)) {
        if (took.length >= limit) break;
        if (accept && !accept(run)) continue;
        const group = groupOf(run);
        let count = driven.get(group);
        if (count === undefined) count = Number((await q.query(SQL.driven, [run.spec, run.queueKey]))[0]!.n);
        if (only !== undefined)
          count += Number((await q.query(SQL.ahead, [run.spec, run.queueKey, run.priority, run.id]))[0]!.n);
        driven.set(group, count);
        if (!hasRoom(run, count)) continue;
        const [row] = await q.query(SQL.take, [
          run.id,
          owner.token,
          owner.host,
          owner.pid,
          owner.pidStart,
          t,
          whole(leaseMs),
        ]);
        if (!row) continue;
        driven.set(group, count + 1);
        await event(q, run.id, t, takenEvent(owner));
        took.push(toRun((await q.query('SELECT * FROM runs WHERE id = $1', [run.id]))[0]!));
      }
      return took;
    });
  }

  async setPriority(runId: number, priority: number, by: string, channel: Channel): Promise<boolean> {
    return this.db.tx(async (q) => {
      const t = Math.round(this.now());
      if (!(await q.query(SQL.priority, [runId, priority, t])).length) return false;
      await event(q, runId, t, { type: 'reprioritized', actor: by, channel, data: { priority } }, 'queued');
      return true;
    });
  }

  async requeue(runId: number, by: string, channel: Channel): Promise<boolean> {
    return this.db.tx(async (q) => {
      const t = Math.round(this.now());
      if (!(await q.query(SQL.requeue, [runId, t])).length) return false;
      await event(q, runId, t, { type: 'retried', actor: by, channel, data: { queued: true } }, 'queued');
      return true;
    });
  }

  async dequeue(runId: number, reason: string, by: string): Promise<boolean> {
    return this.db.tx(async (q) => {
      const t = Math.round(this.now());
      if (!(await q.query(SQL.dequeue, [runId, reason, by, t])).length) return false;
      await event(q, runId, t, dequeuedEvent(reason, by), 'end');
      return true;
    });
  }

  async listQueued(limit: number): Promise<Run[]> {
    return (await this.db.query(SQL.queued, [limit])).map(toRun);
  }
}
