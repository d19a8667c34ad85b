import type Database from 'better-sqlite3';
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
import type { EventInput, OwnerClaim } from '../store.js';
import { q } from './sqlite-prepared.js';

/** What the queue needs of the SQLite store it is part of: its transactions, clock and trail. */
export interface QueueHost {
  db: Database.Database;
  now(): number;
  tx<T>(fn: () => T): T;
  event(runId: number, e: EventInput): void;
}

const SQL = {
  bySendId: 'SELECT * FROM runs WHERE start_id = ?',
  insert: `INSERT INTO runs (spec, workflow_path, workflow_hash, prompt, status, workspace, branch, seed, rules,
      priority, queue_key, concurrency, trigger_json, start_id, owner_token, owner_host, owner_pid, owner_pid_start,
      lease_until, created_at, updated_at)
    VALUES (@spec, @workflowPath, @workflowHash, @prompt, 'queued', @workspace, @branch, @seed, @rules,
      @priority, @queueKey, @concurrency, @trigger, @startId, @token, @host, @pid, @pidStart, @leaseUntil, @t, @t)`,
  // Not one a foreground shop run holds while it waits for its turn (its lease live).
  candidates: `SELECT * FROM runs WHERE status = 'queued' AND stop_at IS NULL
    AND (owner_token IS NULL OR lease_until <= @t) ORDER BY priority DESC, id LIMIT ${QUEUE_SCAN}`,
  one: `SELECT * FROM runs WHERE status = 'queued' AND stop_at IS NULL AND id = @id
    AND (owner_token IS NULL OR owner_token = @token OR lease_until <= @t)`,
  // runs_concurrency: the runs of one workflow and key being driven.
  driven: `SELECT COUNT(*) FROM runs WHERE spec = ? AND queue_key IS ? AND status IN ('running','waiting','waiting_human')`,
  take: `UPDATE runs SET status = 'running', owner_token = @token, owner_host = @host, owner_pid = @pid,
      owner_pid_start = @pidStart, lease_until = @leaseUntil, updated_at = @t WHERE id = @id AND status = 'queued'`,
  // A foreground run waits its turn: the queued runs of its group ahead of it count as taken.
  ahead: `SELECT COUNT(*) FROM runs WHERE status = 'queued' AND stop_at IS NULL AND spec = @spec AND queue_key IS @queueKey
    AND (priority > @priority OR (priority = @priority AND id < @id))`,
  get: 'SELECT * FROM runs WHERE id = ?',
  priority: `UPDATE runs SET priority = ?, updated_at = ? WHERE id = ? AND status = 'queued'`,
  queued: `SELECT * FROM runs WHERE status = 'queued' ORDER BY priority DESC, id LIMIT ?`,
  dequeue: `UPDATE runs SET status = 'stuck', reason = @reason, stop_reason = @reason, stop_by = @by, stop_at = @t,
      ended_at = @t, updated_at = @t WHERE id = @id AND status = 'queued'`,
  requeue: `UPDATE runs SET status = 'queued', reason = NULL, ended_at = NULL, owner_token = NULL, owner_host = NULL,
      owner_pid = NULL, owner_pid_start = NULL, lease_until = NULL, updated_at = @t
    WHERE id = @id AND held IS NULL AND stop_at IS NULL
      AND (status = 'failed' OR (status = 'running' AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= @t)))`,
  anyQueued: `SELECT 1 FROM runs WHERE status = 'queued' AND stop_at IS NULL LIMIT 1`,
} as const;

/** The SQLite adapter's queue: SQLite has one writer, so a claim's count and take are one immediate transaction. */
export class SqliteQueue implements QueueStore {
  constructor(private readonly host: QueueHost) {}

  async queueRun(input: NewQueuedRun): Promise<{ run: Run; created: boolean }> {
    const { db } = this.host;
    return this.host.tx(() => {
      if (input.startId !== null) {
        const before = q(db, SQL.bySendId).get(input.startId) as Row | undefined;
        if (before) return { run: toRun(before), created: false };
      }
      return { run: this.insertQueued(input), created: true };
    });
  }

  /**
   * Inside the caller's transaction (a start, a hook's delivery, a schedule's slot): the queued
   * run's row and its first event (`extra`: what the caller adds to it, e.g. the slot).
   */
  insertQueued(input: NewQueuedRun, extra: Record<string, unknown> = {}): Run {
    const { db } = this.host;
    const id = Number(
      q(db, SQL.insert).run({
        ...input,
        rules: input.rules ? JSON.stringify(input.rules) : null,
        trigger: JSON.stringify(input.trigger),
        t: this.host.now(),
        ...heldBy(input, this.host.now()),
      }).lastInsertRowid,
    );
    this.host.event(id, {
      type: 'run_started',
      actor: input.actor,
      channel: startChannel(input.trigger),
      data: { ...queuedEventData(input), ...extra },
    });
    return toRun(q(db, SQL.get).get(id) as Row);
  }

  async claimQueuedRuns(
    owner: OwnerClaim,
    leaseMs: number,
    limit: number,
    only?: number,
    accept?: (run: Run) => boolean,
  ): Promise<Run[]> {
    const { db } = this.host;
    if (limit <= 0) return [];
    // A pass with nothing queued (the usual one) reads, without taking the write lock.
    if (only === undefined && !q(db, SQL.anyQueued).get()) return [];
    return this.host.tx(() => {
      const t = this.host.now();
      const rows = (
        only === undefined ? q(db, SQL.candidates).all({ t }) : q(db, SQL.one).all({ id: only, token: owner.token, t })
      ) as Row[];
      const driven = new Map<string, number>();
      const took: Run[] = [];
      for (const run of rows.map(toRun)) {
        if (took.length >= limit) break;
        if (accept && !accept(run)) continue;
        const group = groupOf(run);
        const count =
          driven.get(group) ??
          (q(db, SQL.driven).pluck().get(run.spec, run.queueKey) as number) +
            (only === undefined ? 0 : (q(db, SQL.ahead).pluck().get(run) as number));
        driven.set(group, count);
        if (!hasRoom(run, count)) continue;
        q(db, SQL.take).run({ ...owner, leaseUntil: t + leaseMs, t, id: run.id });
        driven.set(group, count + 1);
        this.host.event(run.id, takenEvent(owner));
        took.push(toRun(q(db, SQL.get).get(run.id) as Row));
      }
      return took;
    });
  }

  async setPriority(runId: number, priority: number, by: string, channel: Channel): Promise<boolean> {
    return this.host.tx(() => {
      const changed = q(this.host.db, SQL.priority).run(priority, this.host.now(), runId).changes > 0;
      if (changed) this.host.event(runId, { type: 'reprioritized', actor: by, channel, data: { priority } });
      return changed;
    });
  }

  async requeue(runId: number, by: string, channel: Channel): Promise<boolean> {
    return this.host.tx(() => {
      const t = this.host.now();
      if (!q(this.host.db, SQL.requeue).run({ id: runId, t }).changes) return false;
      this.host.event(runId, { type: 'retried', actor: by, channel, data: { queued: true } });
      return true;
    });
  }

  async dequeue(runId: number, reason: string, by: string): Promise<boolean> {
    return this.host.tx(() => {
      const t = this.host.now();
      if (!q(this.host.db, SQL.dequeue).run({ id: runId, reason, by, t }).changes) return false;
      this.host.event(runId, dequeuedEvent(reason, by));
      return true;
    });
  }

  async listQueued(limit: number): Promise<Run[]> {
    return (q(this.host.db, SQL.queued).all(limit) as Row[]).map(toRun);
  }
}
