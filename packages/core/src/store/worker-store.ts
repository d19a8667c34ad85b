import type { Run } from '../types.js';
import type { OwnerClaim } from './store-inputs.js';

/** A `shop watch` process as it registers itself on the store. */
export interface NewWorker {
  /** Its own id (a random UUID), the row's key. */
  id: string;
  host: string;
  pid: number;
  pidStart: string | null;
  /** The project's identity (its repository's root commit, else an id kept in .shop/). */
  project: string;
  /** Its --max-parallel (null: no limit). */
  maxParallel: number | null;
}

/** What a worker reports on every heartbeat. */
export interface WorkerLoad {
  /** Runs it holds (waiting) or drives now. */
  runsHeld: number;
  /** Agent processes it runs now. */
  agents: number;
  /** Runs it leaves to the other workers, and why (its checkout lacks their workflow or workspace); at most LEFT_SHOWN. */
  left?: LeftRun[];
}

/** A run a worker leaves to others: its checkout cannot drive it. */
export interface LeftRun {
  runId: number;
  spec: string;
  reason: string;
}

/** The most left runs a worker's row keeps (the rest are counted by the worker's line in shop watch). */
export const LEFT_SHOWN = 20;

/** The left runs as a workers row keeps them (JSON; null when none). */
export function leftColumn(load: WorkerLoad): string | null {
  return load.left?.length ? JSON.stringify(load.left.slice(0, LEFT_SHOWN)) : null;
}

/** A registered worker, as `shop workers` reads it; live or gone is judged by the reader. */
export interface WorkerRow extends NewWorker, WorkerLoad {
  left: LeftRun[];
  startedAt: number;
  heartbeatAt: number;
}

/** A wake-up another process sent (PostgreSQL NOTIFY): what happened, to which run. */
export interface Wake {
  kind: string;
  runId: number | null;
}

/**
 * The worker registry, part of the store port: every `shop watch` on every machine registers
 * itself, heartbeats while it lives and ends its row on exit, so `shop workers` can list them.
 * Times are the store's clock.
 */
export interface WorkerStore {
  /** Adds the worker's row (started and heartbeat now); rows gone silent for a day are dropped. */
  registerWorker(w: NewWorker): Promise<void>;
  /** Records the worker's load and now as its last heartbeat; false when its row is gone. */
  heartbeatWorker(id: string, load: WorkerLoad): Promise<boolean>;
  /** Removes the worker's row (nothing when it is gone). */
  endWorker(id: string): Promise<void>;
  /** Every registered worker, oldest first. */
  listWorkers(): Promise<WorkerRow[]>;
  /**
   * A worker's pass takes, in one transaction, up to `limit` open runs (running or waiting) that
   * no one holds — no owner, or a lease lapsed by the store's clock — for `owner`, leased for
   * `leaseMs`, oldest first; returns the runs it took. Racing workers never take the same run,
   * and never wait on each other's (PostgreSQL: FOR UPDATE SKIP LOCKED). `skip`: runs this
   * worker leaves to others (its checkout lacks their workflow or workspace).
   */
  claimIdleRuns(owner: OwnerClaim, leaseMs: number, limit: number, skip?: readonly number[]): Promise<Run[]>;
  /**
   * Calls `onWake` for every wake-up another process sends (new runs, answers, stops,
   * releases, timers) until closed. Absent when the store cannot push them (SQLite: the
   * signal-file watcher wakes workers there).
   */
  listen?(onWake: (w: Wake) => void): Promise<{ close(): Promise<void> }>;
}

/** Rows of workers silent this long are dropped at the next registration (a crashed worker's). */
export const FORGET_GONE_WORKERS_MS = 24 * 3600_000;
