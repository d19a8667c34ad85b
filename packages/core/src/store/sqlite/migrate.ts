import type Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { ConflictError } from '../../errors.js';
import { shippedFile } from '../../project/shipped-file.js';
import { SCHEMA_VERSION } from '../schema-version.js';
import { compactSql } from './compact-sql.js';

/**
 * Version 1 → 2: owner tokens, stop requests, the delivery order and the workflow hash.
 * A version-1 run drove one call at a time, so its completed calls were handed to Lua in
 * call order: that order becomes their delivery order.
 */
const V2 = `
ALTER TABLE runs ADD COLUMN workflow_hash TEXT;
ALTER TABLE runs ADD COLUMN owner_token TEXT;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN owner_pid_start TEXT;
ALTER TABLE runs ADD COLUMN stop_reason TEXT;
ALTER TABLE runs ADD COLUMN stop_by TEXT;
ALTER TABLE runs ADD COLUMN stop_at INTEGER;
ALTER TABLE executions ADD COLUMN delivered INTEGER;
ALTER TABLE executions ADD COLUMN pid_start TEXT;
UPDATE executions SET delivered = (
  SELECT COUNT(*) FROM executions e2
  WHERE e2.run_id = executions.run_id AND e2.status = 'completed' AND e2.seq <= executions.seq
) WHERE status = 'completed';
UPDATE runs SET owner_pid = NULL, lease_until = NULL;
`;

/** Version 3 → 4: an agent's live progress on its execution. */
const V4 = `
ALTER TABLE executions ADD COLUMN attempt_at INTEGER;
ALTER TABLE executions ADD COLUMN activity TEXT;
ALTER TABLE executions ADD COLUMN activity_at INTEGER;
`;

/**
 * Version 4 → 5, before the schema: counters on runs; executions and events set aside (with
 * their indexes and triggers, whose names the new ones take) to be copied into their new
 * clustered tables after it.
 */
const V5_BEFORE = `
ALTER TABLE runs ADD COLUMN calls INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN delivered INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN events INTEGER NOT NULL DEFAULT 0;
UPDATE runs SET
  calls = COALESCE((SELECT MAX(seq) FROM executions e WHERE e.run_id = runs.id), 0),
  delivered = COALESCE((SELECT MAX(delivered) FROM executions e WHERE e.run_id = runs.id), 0),
  events = COALESCE((SELECT MAX(id) FROM events v WHERE v.run_id = runs.id), 0);
DROP INDEX IF EXISTS executions_order;
DROP INDEX IF EXISTS executions_delivered;
DROP INDEX IF EXISTS executions_open;
DROP INDEX IF EXISTS events_run;
DROP TRIGGER IF EXISTS events_append_only_update;
DROP TRIGGER IF EXISTS events_append_only_delete;
ALTER TABLE executions RENAME TO executions_v4;
ALTER TABLE events RENAME TO events_v4;
`;
const EXECUTION_COLUMNS = `run_id, call_key, seq, kind, agent, fingerprint, status, delivered, session_id, cwd, prompt, request, result,
  signal_path, waiting_for, awaiting, error, cost_usd, num_turns, duration_ms, pid, pid_start, attempt_at, activity, activity_at,
  attempts, ask, started_at, updated_at, finished_at`;
/** Version 4 → 5, after the schema: the rows copied over, the old tables dropped. */
const V5_AFTER = `
INSERT INTO executions (${EXECUTION_COLUMNS}) SELECT ${EXECUTION_COLUMNS} FROM executions_v4;
INSERT INTO events (run_id, id, call_key, type, actor, channel, data, at) SELECT run_id, id, call_key, type, actor, channel, data, at FROM events_v4;
DROP TABLE executions_v4;
DROP TABLE events_v4;
`;

/** Version 5 → 6: session holds (one agent process per call) and whether a call's agent ever started. */
const V6 = `
ALTER TABLE executions ADD COLUMN spawned INTEGER NOT NULL DEFAULT 0;
ALTER TABLE executions ADD COLUMN hold_kind TEXT CHECK (hold_kind IN ('agent','continue'));
ALTER TABLE executions ADD COLUMN hold_token TEXT;
ALTER TABLE executions ADD COLUMN hold_by TEXT;
ALTER TABLE executions ADD COLUMN hold_host TEXT;
ALTER TABLE executions ADD COLUMN hold_pid INTEGER;
ALTER TABLE executions ADD COLUMN hold_pid_start TEXT;
ALTER TABLE executions ADD COLUMN hold_since INTEGER;
`;
/* Version 8 is the workers table, version 9 sessions and reports, version 11 ended web sessions, version 12 sent events and their takes: new tables only, made by schema.sql. */
/** Version 5–9 → 10: the decisions an ask asks for, when not the one its kind implies (an agent's AskUserQuestion). */
const V10 = `ALTER TABLE executions ADD COLUMN ask_decisions TEXT;`;
/** Version ≤ 10 → 11: the rules a run obeys, fixed when it starts, and why it is held (a rule file changed during its step). */
const V11 = `
ALTER TABLE runs ADD COLUMN rules TEXT;
ALTER TABLE runs ADD COLUMN held TEXT;
`;
/**
 * Version ≤ 11 → 12: a run and a call may wait on the world (`waiting`: time, events, other
 * runs), not only on a person. The status CHECKs only widen — every row stays valid — so
 * they are edited in place (SQLite's documented way for a looser constraint) rather than
 * the tables rebuilt: a rebuild of runs would cascade through the tables that reference it.
 */
function widenStatuses(db: Database.Database, tables: string[]): void {
  for (const table of tables)
    widenStatus(db, table, `'running','waiting_human'`, `'running','waiting','waiting_human'`);
}
function widenStatus(db: Database.Database, table: string, from: string, to: string): void {
  const version = Number(db.pragma('schema_version', { simple: true }));
  db.unsafeMode(true);
  try {
    db.pragma('writable_schema = ON');
    db.prepare(`UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name = ?`).run(
      from,
      to,
      table,
    );
    db.pragma(`schema_version = ${version + 1}`);
    db.pragma('writable_schema = OFF');
  } finally {
    db.unsafeMode(false);
  }
}
/** Version ≤ 11 → 12: a run started by another run's call (call_workflow) names its parent and that call. */
function v12Runs(db: Database.Database): void {
  const has = new Set((db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name));
  if (!has.has('parent_id')) db.exec('ALTER TABLE runs ADD COLUMN parent_id INTEGER REFERENCES runs(id)');
  if (!has.has('parent_key')) db.exec('ALTER TABLE runs ADD COLUMN parent_key TEXT');
}
/** Version 5–11 → 12: what a waiting call waits on, and the open calls' index with `waiting` (schema.sql makes it again). */
function v12(db: Database.Database): void {
  const has = new Set((db.prepare('PRAGMA table_info(executions)').all() as { name: string }[]).map((c) => c.name));
  if (!has.has('wait_kind')) db.exec('ALTER TABLE executions ADD COLUMN wait_kind TEXT');
  if (!has.has('wait_until')) db.exec('ALTER TABLE executions ADD COLUMN wait_until INTEGER');
  if (!has.has('wait_run')) db.exec('ALTER TABLE executions ADD COLUMN wait_run INTEGER');
  db.exec('DROP INDEX IF EXISTS executions_open');
}
/** Version ≤ 12 → 13: a row of people is a login link or an API token (schema.sql makes new stores with it). */
function v13(db: Database.Database): void {
  const has = new Set((db.prepare('PRAGMA table_info(people)').all() as { name: string }[]).map((c) => c.name));
  if (!has.has('kind'))
    db.exec(`ALTER TABLE people ADD COLUMN kind TEXT NOT NULL DEFAULT 'login' CHECK (kind IN ('login','token'))`);
}
/**
 * Version ≤ 13 → 14: the queue. Runs may be `queued` (the CHECK widened in place, as v12's),
 * with a priority, a key, their workflow's concurrency, a trigger and an idempotency id; the
 * queue's indexes (made here, after an older store has the columns). Schedules and hooks are
 * new tables (schema.sql).
 */
function v14(db: Database.Database, version: number): void {
  const has = new Set((db.prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name));
  if (version >= 1 && !has.has('priority')) {
    widenStatus(db, 'runs', `'running','waiting','waiting_human'`, `'queued','running','waiting','waiting_human'`);
    db.exec(`ALTER TABLE runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE runs ADD COLUMN queue_key TEXT;
      ALTER TABLE runs ADD COLUMN concurrency INTEGER;
      ALTER TABLE runs ADD COLUMN trigger_json TEXT;
      ALTER TABLE runs ADD COLUMN start_id TEXT;`);
  }
  db.exec(V14_INDEXES);
}
const V14_INDEXES = `
CREATE INDEX IF NOT EXISTS runs_queued ON runs(priority DESC, id) WHERE status = 'queued';
CREATE INDEX IF NOT EXISTS runs_concurrency ON runs(spec, queue_key) WHERE status IN ('running','waiting','waiting_human');
CREATE UNIQUE INDEX IF NOT EXISTS runs_start_id ON runs(start_id) WHERE start_id IS NOT NULL;`;
/** Version 8–14 → 15: the runs a worker leaves to others (its checkout lacks them), for shop workers. */
function v15(db: Database.Database): void {
  const has = new Set((db.prepare('PRAGMA table_info(workers)').all() as { name: string }[]).map((c) => c.name));
  if (!has.has('left_runs')) db.exec('ALTER TABLE workers ADD COLUMN left_runs TEXT');
}
/** Version 8–15 → 16: the tokens each call's agents reported (a new store has them from schema.sql). */
function v16(db: Database.Database): void {
  const has = new Set((db.prepare('PRAGMA table_info(executions)').all() as { name: string }[]).map((c) => c.name));
  for (const c of TOKEN_COLUMNS) if (!has.has(c)) db.exec(`ALTER TABLE executions ADD COLUMN ${c} INTEGER`);
}
const TOKEN_COLUMNS = ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'];
/** Version 5 or 6 → 7: how long a claim on a call's ask lasts (claims and the rest are new tables). */
const V7 = `ALTER TABLE executions ADD COLUMN claim_timeout INTEGER;`;
/**
 * Version ≤ 5 → 6, after the rows are in: a call that got past its first attempt, has a pid
 * or has ended had an agent process; only a running first attempt without a pid never did.
 */
const V6_SPAWNED = `UPDATE executions SET spawned = 1 WHERE kind = 'run' AND (pid IS NOT NULL OR attempts > 1 OR status <> 'running');`;

/** Brings a store to SCHEMA_VERSION in one transaction; refuses one written by a newer Shop. */
export function migrate(db: Database.Database): void {
  if (checkedVersion(db) === SCHEMA_VERSION) return;
  db.transaction(() => {
    // Again under the write lock: another process may have migrated it meanwhile.
    const version = checkedVersion(db);
    if (version === SCHEMA_VERSION) return;
    if (version === 1) db.exec(V2);
    if (version >= 1 && version <= 3) db.exec(V4);
    if (version >= 1 && version <= 4) db.exec(V5_BEFORE);
    if (version === 5) db.exec(V6);
    if (version === 5 || version === 6) db.exec(V7);
    // Older stores get the executions table anew from schema.sql (with the column).
    if (version >= 5 && version <= 9) db.exec(V10);
    // Every older store has a runs table to extend (schema.sql's runs table is not made again).
    if (version >= 1 && version <= 10) db.exec(V11);
    // Stores before 5 get their executions table anew from schema.sql (widened, with the columns).
    if (version >= 1) widenStatuses(db, version >= 5 ? ['runs', 'executions'] : ['runs']);
    if (version >= 5) v12(db);
    if (version >= 1) v12Runs(db);
    // New tables and indexes (all IF NOT EXISTS): a new store gets everything here, and
    // schema 3's timers come to a store of schema 2 the same way.
    db.exec(compactSql(readFileSync(shippedFile('schema.sql', import.meta.url), 'utf8')));
    // After schema.sql: a store older than the people table has it made there, with the column.
    v13(db);
    v14(db, version);
    v15(db);
    v16(db);
    if (version >= 1 && version <= 4) db.exec(V5_AFTER);
    if (version >= 1) db.exec(V6_SPAWNED);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

function checkedVersion(db: Database.Database): number {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > SCHEMA_VERSION) {
    throw new ConflictError(
      `the store was written by a newer Shop (schema ${version} > ${SCHEMA_VERSION}); upgrade Shop`,
    );
  }
  return version;
}
