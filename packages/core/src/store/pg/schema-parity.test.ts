import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { usePgCluster } from '../../../../../test/pg-cluster-hooks.js';
import { migrate } from '../sqlite/migrate.js';
import { migratePg } from './migrate-pg.js';
import { openPgDb } from './pg-db.js';

const cluster = usePgCluster();

/** A table's columns, sorted (an ALTER TABLE appends, so the two orders may differ), by table. */
type Shape = Record<string, string[]>;

function sqliteShape(): { tables: Shape; indexes: string[] } {
  const db = new Database(':memory:');
  try {
    migrate(db);
    const names = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`).all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    const tables: Shape = {};
    for (const name of names)
      tables[name] = (db.prepare('SELECT name FROM pragma_table_info(?)').all(name) as { name: string }[])
        .map((c) => c.name)
        .sort();
    const indexes = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'`).all() as {
        name: string;
      }[]
    ).map((r) => r.name);
    return { tables, indexes: indexes.sort() };
  } finally {
    db.close();
  }
}

async function pgShape(url: string): Promise<{ tables: Shape; indexes: string[] }> {
  const db = await openPgDb(url);
  try {
    await migratePg(db);
    const cols = await db.query<{ t: string; c: string }>(
      `SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = 'public'`,
    );
    const tables: Shape = {};
    for (const { t, c } of cols) (tables[t] ??= []).push(c);
    for (const t of Object.keys(tables)) tables[t]!.sort();
    // Primary keys and UNIQUE constraints are named by PostgreSQL (…_pkey, …_key), unnamed in SQLite.
    const indexes = await db.query<{
      name: string;
    }>(`SELECT i.indexname AS name FROM pg_indexes i WHERE i.schemaname = 'public'
      AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conname = i.indexname)`);
    return { tables, indexes: indexes.map((r) => r.name).sort() };
  } finally {
    await db.close();
  }
}

describe("the two adapters' schemas", () => {
  it('have the same tables, columns and index names at SCHEMA_VERSION (bar what each keeps for itself)', async () => {
    const sqlite = sqliteShape();
    const pg = await pgShape(await cluster.fresh('parity'));
    // PostgreSQL keeps its version in a table (SQLite in PRAGMA user_version) and finds a run's
    // timers by an index (SQLite scans the few pending ones).
    const { schema_meta: version, ...pgTables } = pg.tables;
    expect(Object.keys(sqlite.tables).sort()).toEqual([
      'answers',
      'claims',
      'ended_sessions',
      'event_takes',
      'events',
      'executions',
      'hook_deliveries',
      'hooks',
      'people',
      'reports',
      'runs',
      'schedule_slots',
      'schedules',
      'sent_events',
      'sessions',
      'settings',
      'timers',
      'workers',
    ]);
    expect(version).toEqual(['id', 'version']);
    expect(pgTables).toEqual(sqlite.tables);
    expect(pg.indexes.filter((name) => name !== 'timers_run')).toEqual(sqlite.indexes);
  });
});
