import { ConflictError } from '../../errors.js';
import { SCHEMA_VERSION } from '../schema-version.js';
import type { PgDb, Sql } from './pg-db.js';
import { PG_SCHEMA, QUEUE_SCHEMA, SENT_EVENTS_SCHEMA } from './schema.js';

/** Serializes migrations of one database: every Shop process on it takes the same lock. */
const MIGRATION_LOCK = 0x5ec0de16;
const UNDEFINED_TABLE = '42P01';

/** The version PG_SCHEMA is at: PostgreSQL stores begin there, and go on by STEPS. */
const PG_SCHEMA_VERSION = 7;
/**
 * Steps from version N to N + 1 of a PostgreSQL store, by N, run after PG_SCHEMA on a new
 * store too: a later version adds its step here and to SQLite's sqlite/migrate.ts.
 */
const STEPS: Record<number, string> = {
  // 7 → 8: the worker registry (shop watch on every machine; shop workers), as SQLite's schema.sql.
  7: `CREATE TABLE IF NOT EXISTS workers (
    id            TEXT    PRIMARY KEY,
    host          TEXT    NOT NULL,
    pid           BIGINT  NOT NULL,
    pid_start     TEXT,
    project       TEXT    NOT NULL,
    max_parallel  BIGINT,
    runs_held     BIGINT  NOT NULL DEFAULT 0,
    agents        BIGINT  NOT NULL DEFAULT 0,
    started_at    BIGINT  NOT NULL,
    heartbeat_at  BIGINT  NOT NULL
  );`,
  // 8 → 9: sessions across machines (kept Claude transcripts; shop report's body per call), as SQLite's schema.sql.
  8: `CREATE TABLE IF NOT EXISTS sessions (
    run_id        BIGINT  NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    session_id    TEXT    NOT NULL,
    call_key      TEXT    NOT NULL,
    host          TEXT    NOT NULL,
    bytes         BIGINT  NOT NULL,
    sha256        TEXT    NOT NULL,
    gz            BYTEA,
    saved_at      BIGINT  NOT NULL,
    PRIMARY KEY (run_id, session_id)
  );
  CREATE TABLE IF NOT EXISTS reports (
    run_id        BIGINT  NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    call_key      TEXT    NOT NULL,
    signal_path   TEXT    NOT NULL,
    body          TEXT    NOT NULL,
    reported_at   BIGINT  NOT NULL,
    PRIMARY KEY (run_id, call_key)
  );`,
  // 9 → 10: the decisions an ask asks for, when not the one its kind implies (an agent's AskUserQuestion).
  9: `ALTER TABLE executions ADD COLUMN IF NOT EXISTS ask_decisions TEXT;`,
  // 10 → 11: the rules a run obeys, fixed when it starts, and why it is held (a rule file changed during
  // its step); web sessions ended before they expire (shop serve's logout), as SQLite's schema.sql.
  10: `ALTER TABLE runs ADD COLUMN IF NOT EXISTS rules TEXT;
  ALTER TABLE runs ADD COLUMN IF NOT EXISTS held TEXT;
  CREATE INDEX IF NOT EXISTS runs_held ON runs(id) WHERE held IS NOT NULL;
  CREATE TABLE IF NOT EXISTS ended_sessions (
    id            TEXT    PRIMARY KEY,
    ended_at      BIGINT  NOT NULL,
    expires_at    BIGINT  NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ended_sessions_expiry ON ended_sessions(expires_at);`,
  // 11 → 12: a run and a call may wait on the world (time, events, other runs), not only on a person; what a waiting call waits on;
  // events from the outside world and the runs' takes of them, as SQLite's schema.sql;
  // a child run (call_workflow) names its parent and the parent's call, one child per call by a unique index.
  11: `ALTER TABLE runs DROP CONSTRAINT IF EXISTS runs_status_check;
  ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN ('running','waiting','waiting_human','completed','stuck','failed'));
  ALTER TABLE executions DROP CONSTRAINT IF EXISTS executions_status_check;
  ALTER TABLE executions ADD CONSTRAINT executions_status_check CHECK (status IN ('running','waiting','waiting_human','completed','failed'));
  ALTER TABLE executions ADD COLUMN IF NOT EXISTS wait_kind TEXT;
  ALTER TABLE executions ADD COLUMN IF NOT EXISTS wait_until BIGINT;
  DROP INDEX IF EXISTS executions_open;
  CREATE INDEX executions_open ON executions(status, run_id) WHERE status IN ('running','waiting','waiting_human');
  ALTER TABLE executions ADD COLUMN IF NOT EXISTS wait_run BIGINT;
  ALTER TABLE runs ADD COLUMN IF NOT EXISTS parent_id BIGINT REFERENCES runs(id);
  ALTER TABLE runs ADD COLUMN IF NOT EXISTS parent_key TEXT;
  CREATE UNIQUE INDEX IF NOT EXISTS runs_parent ON runs(parent_id, parent_key) WHERE parent_id IS NOT NULL;
  CREATE INDEX IF NOT EXISTS executions_wait_run ON executions(wait_run) WHERE wait_run IS NOT NULL AND status = 'waiting';
  ${SENT_EVENTS_SCHEMA}`,
  // 12 → 13: a row of people is a login link or an API token (shop access add --token), as SQLite's schema.sql.
  12: `ALTER TABLE people ADD COLUMN IF NOT EXISTS kind TEXT NOT NULL DEFAULT 'login' CHECK (kind IN ('login','token'));`,
  // 13 → 14: the queue (a run may be queued, with a priority, a key, a concurrency, a trigger, an
  // idempotency id), schedules with their slots, webhooks with their deliveries, as SQLite's schema.sql.
  13: QUEUE_SCHEMA,
  // 14 → 15: the runs a worker leaves to others (its checkout lacks them), as SQLite's schema.sql.
  14: `ALTER TABLE workers ADD COLUMN IF NOT EXISTS left_runs TEXT;`,
  // 15 → 16: the tokens each call's agents reported, summed over its invocations, as SQLite's schema.sql.
  15: `ALTER TABLE executions ADD COLUMN IF NOT EXISTS input_tokens BIGINT;
  ALTER TABLE executions ADD COLUMN IF NOT EXISTS output_tokens BIGINT;
  ALTER TABLE executions ADD COLUMN IF NOT EXISTS cache_read_tokens BIGINT;
  ALTER TABLE executions ADD COLUMN IF NOT EXISTS cache_write_tokens BIGINT;`,
};

/**
 * Brings the database to SCHEMA_VERSION in one transaction (a new one gets the whole schema);
 * refuses one written by a newer Shop. Concurrent first opens queue on an advisory lock, and
 * the version is read again under it: the second finds the work done.
 */
export async function migratePg(db: PgDb): Promise<void> {
  if (checked(await version(db)) === SCHEMA_VERSION) return;
  await db.tx(async (q) => {
    await q.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    let at = checked(await versionInTx(q));
    if (at === SCHEMA_VERSION) return;
    if (at === 0) {
      await q.query(PG_SCHEMA);
      await q.query('INSERT INTO schema_meta (id, version) VALUES (1, $1)', [PG_SCHEMA_VERSION]);
      at = PG_SCHEMA_VERSION;
    }
    for (; at < SCHEMA_VERSION; at++) {
      const step = STEPS[at];
      if (step === undefined)
        throw new ConflictError(
          `the PostgreSQL store is at schema ${at}, which this Shop cannot migrate; start a new database`,
        );
      await q.query(step);
    }
    await q.query('UPDATE schema_meta SET version = $1 WHERE id = 1', [SCHEMA_VERSION]);
  });
}

/** The store's version; 0 for a database without Shop's tables (outside a transaction). */
async function version(q: Sql): Promise<number> {
  try {
    const [row] = await q.query<{ version: number }>('SELECT version FROM schema_meta WHERE id = 1');
    return row ? Number(row.version) : 0;
  } catch (e) {
    if ((e as { code?: string }).code === UNDEFINED_TABLE) return 0;
    throw e;
  }
}

/** The same inside a transaction, where a failed statement would abort it: asks first whether the table exists. */
async function versionInTx(q: Sql): Promise<number> {
  const [row] = await q.query<{ present: boolean }>("SELECT to_regclass('schema_meta') IS NOT NULL AS present");
  return row?.present ? version(q) : 0;
}

function checked(version: number): number {
  if (version > SCHEMA_VERSION) {
    throw new ConflictError(
      `the store was written by a newer Shop (schema ${version} > ${SCHEMA_VERSION}); upgrade Shop`,
    );
  }
  return version;
}
