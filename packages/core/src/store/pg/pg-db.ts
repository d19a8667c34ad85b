import pg from './node-postgres.js';
import type * as PgTypes from 'pg';
import { nulFreeText } from '../nul-free.js';

/** A row as node-postgres hands it back: SQLite's column names, int8 as numbers, JSON as text. */
export type Row = Record<string, unknown>;

/** Something to run SQL on: the pool (one statement, its own transaction) or a transaction. */
export interface Sql {
  query<R = Row>(text: string, params?: unknown[]): Promise<R[]>;
}

/** The PostgreSQL connection of a store: a pool, transactions on it, the store's clock, NOTIFY. */
export interface PgDb extends Sql {
  /** Runs `fn` in one transaction (retried whole on a deadlock or serialization failure). */
  tx<T>(fn: (q: Sql) => Promise<T>): Promise<T>;
  /** The store's clock (ms): the database's, or the injected one. */
  now(): number;
  /** Wakes LISTENers on channel `shop_wake` with `<kind>:<runId>`, when `q`'s transaction commits. */
  notify(q: Sql, kind: string, runId: number): Promise<void>;
  /**
   * LISTENs on `shop_wake` on a connection of its own, each payload to `onPayload` — and null
   * after a dropped connection came back, when some may have been missed — until closed.
   */
  listen(onPayload: (payload: string | null) => void): Promise<{ close(): Promise<void> }>;
  close(): Promise<void>;
}

export interface PgDbOptions {
  /** The store's clock, used as it is (tests, SHOP_CLOCK_FILE); absent: the database's clock. */
  now?: () => number;
  poolSize?: number;
  /** How long a new connection may take (ms; default 10 s): a host that drops packets fails instead of hanging. */
  connectTimeoutMs?: number;
  /**
   * How long the server lets one of this pool's transactions sit idle (ms; default 10 s, inside a lease) before
   * it ends the session: a process stopped mid-transaction (SIGSTOP, a sleeping laptop) gives
   * up its locks on a run instead of blocking every other writer of it (and a takeover). The
   * store's transactions only run queries, so a live one is idle that long only on a machine
   * too loaded to keep its lease anyway.
   */
  idleInTransactionMs?: number;
}

export const WAKE_CHANNEL = 'shop_wake';

const INT8 = 20;
const NUMERIC = 1700;
const toNumber = (v: string) => Number(v);
/**
 * This pool's type parsers: int8 (ids, times in ms, counters) and numeric as JS numbers — all
 * well inside 2^53 — without touching pg's global parsers, which other code may rely on.
 */
const types = {
  getTypeParser(oid: number, format?: string) {
    if (oid === INT8 || oid === NUMERIC) return toNumber;
    return (pg.types.getTypeParser as (oid: number, format?: string) => unknown)(oid, format);
  },
};

/** Retried whole: the transaction was rolled back by the server and may simply be run again. */
const RETRYABLE = new Set(['40P01', '40001']);
const CLOCK_EVERY_MS = 60_000;

/**
 * PostgreSQL text cannot hold NUL: a write carrying one would fail whole. Store operations
 * hand none (nul-free.ts decides that for every store); SQL run here directly gets the same
 * U+FFFD rather than a failed statement.
 */
const withoutNul = (v: unknown): unknown => (typeof v === 'string' ? nulFreeText(v) : v);

/**
 * Named (prepared once per connection, then only bound and executed) when it has parameters;
 * a statement without any goes as a simple query, which may hold several statements (schema).
 */
class Statements {
  private readonly names = new Map<string, string>();
  config(text: string, params?: unknown[]): PgTypes.QueryConfig {
    if (!params?.length) return { text };
    let name = this.names.get(text);
    if (!name) this.names.set(text, (name = `shop_${this.names.size}`));
    return { name, text, values: params.map(withoutNul) };
  }
}

/** Opens a pool on `url` and measures the database's clock. The schema is migrate-pg's job. */
export async function openPgDb(url: string, opts: PgDbOptions = {}): Promise<PgDb> {
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    types,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 10_000,
    idle_in_transaction_session_timeout: opts.idleInTransactionMs ?? 10_000,
  } as PgTypes.PoolConfig);
  // An idle client's connection dropping must not crash the process; the next query reports it.
  pool.on('error', () => {});
  const db = new PgPool(pool, opts.now);
  try {
    if (!opts.now) await db.measureClock();
  } catch (e) {
    await pool.end().catch(() => {});
    throw e;
  }
  return db;
}

class PgPool implements PgDb {
  private readonly statements = new Statements();
  /** Database clock minus this machine's (ms), measured at open and every minute. */
  private offset = 0;
  private readonly timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly pool: PgTypes.Pool,
    private readonly injected?: () => number,
  ) {
    if (!injected) {
      this.timer = setInterval(() => void this.measureClock().catch(() => {}), CLOCK_EVERY_MS);
      this.timer.unref();
    }
  }

  now(): number {
    return Math.round(this.injected ? this.injected() : Date.now() + this.offset);
  }

  /** The offset to clock_timestamp(), taken against the middle of the round trip. */
  async measureClock(): Promise<void> {
    const before = Date.now();
    const [row] = await this.query<{ t: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t');
    const after = Date.now();
    this.offset = Number(row!.t) - (before + after) / 2;
  }

  /** One statement, its own transaction: like tx(), run again when the server rolled it back for a deadlock. */
  async query<R = Row>(text: string, params?: unknown[]): Promise<R[]> {
    for (let attempt = 1; ; attempt++) {
      try {
        return (await this.pool.query(this.statements.config(text, params))).rows as R[];
      } catch (e) {
        if (attempt < 5 && RETRYABLE.has(String((e as { code?: string }).code))) continue;
        throw e;
      }
    }
  }

  async tx<T>(fn: (q: Sql) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const client = await this.pool.connect();
      const q: Sql = {
        query: async <R>(text: string, params?: unknown[]) =>
          (await client.query(this.statements.config(text, params))).rows as R[],
      };
      let broken: Error | undefined;
      // The server may end the session while we hold it (idle too long in a transaction, a
      // restart): the next query fails with that, instead of an unhandled 'error' crashing the process.
      const lost = (e: Error) => void (broken = e);
      client.on('error', lost);
      try {
        await client.query('BEGIN');
        const result = await fn(q);
        await client.query('COMMIT');
        return result;
      } catch (e) {
        try {
          await client.query('ROLLBACK');
        } catch (rollback) {
          broken = rollback as Error; // the connection is unusable: drop it from the pool
        }
        if (attempt < 5 && RETRYABLE.has(String((e as { code?: string }).code))) continue;
        throw e;
      } finally {
        client.removeListener('error', lost);
        client.release(broken);
      }
    }
  }

  async notify(q: Sql, kind: string, runId: number): Promise<void> {
    await q.query('SELECT pg_notify($1, $2)', [WAKE_CHANNEL, `${kind}:${runId}`]);
  }

  async listen(onPayload: (payload: string | null) => void): Promise<{ close(): Promise<void> }> {
    let client: PgTypes.Client | null = null;
    let stopped = false;
    let retry: NodeJS.Timeout | undefined;
    const connect = async () => {
      const c = new pg.Client({ ...this.pool.options, types } as PgTypes.ClientConfig);
      c.on('error', () => {});
      c.on('notification', (n) => n.channel === WAKE_CHANNEL && onPayload(n.payload ?? ''));
      c.on('end', () => {
        if (stopped || client !== c) return;
        client = null;
        again();
      });
      await c.connect();
      await c.query(`LISTEN ${WAKE_CHANNEL}`);
      // Closed while connecting: this one is not wanted any more.
      if (stopped) return void (await c.end().catch(() => {}));
      client = c;
    };
    // A worker outlives a database restart: it listens again a second later, and wakes once for what it missed.
    const again = () => {
      if (stopped) return;
      retry = setTimeout(() => void connect().then(() => !stopped && onPayload(null), again), 1_000);
    };
    await connect();
    return {
      close: async () => {
        stopped = true;
        clearTimeout(retry);
        await client?.end().catch(() => {});
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.timer);
    await this.pool.end();
  }
}
