import { createServer, type Socket } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePgCluster } from '../../../../../test/pg-cluster-hooks.js';
import { SCHEMA_VERSION } from '../schema-version.js';
import { migratePg } from './migrate-pg.js';
import { openPgDb, WAKE_CHANNEL } from './pg-db.js';

const cluster = usePgCluster();
const fresh = () => cluster.fresh('pgdb');

describe('PgDb', () => {
  it('hands int8 back as numbers with its own parser, leaving pg’s global one alone', async () => {
    const db = await openPgDb(await fresh());
    try {
      const [row] = await db.query<{ big: unknown; sum: unknown }>('SELECT $1::bigint AS big, 5::numeric AS sum', [
        Number.MAX_SAFE_INTEGER,
      ]);
      expect(row).toEqual({ big: Number.MAX_SAFE_INTEGER, sum: 5 });
      expect(pg.types.getTypeParser(20, 'text')('12')).toBe('12');
    } finally {
      await db.close();
    }
  });

  it('gives up on a server that never answers, instead of hanging', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((s) => void sockets.push(s));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      await expect(openPgDb(`postgres://shop@127.0.0.1:${port}/x`, { connectTimeoutMs: 300 })).rejects.toThrow(
        /timeout/i,
      );
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });

  it('stores text with a NUL in it (which PostgreSQL text cannot hold) with U+FFFD in its place', async () => {
    const db = await openPgDb(await fresh());
    try {
      const [row] = await db.query<{ v: string }>('SELECT $1::text AS v', ['a\u0000b']);
      expect(row!.v).toBe('a\uFFFDb');
    } finally {
      await db.close();
    }
  });

  it('a transaction left idle (its process stopped) loses its session and locks, so other writers go on', async () => {
    const url = await fresh();
    const stuck = await openPgDb(url, { idleInTransactionMs: 200 });
    const db = await openPgDb(url);
    try {
      await db.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)');
      await db.query('INSERT INTO t VALUES (1, 0)');
      let locked!: () => void;
      let wake!: () => void;
      const holding = new Promise<void>((resolve) => (locked = resolve));
      const stopped = new Promise<void>((resolve) => (wake = resolve));
      // Takes the row's lock, then stops, as a process does when it is suspended; it goes on later.
      const stalled = stuck.tx(async (q) => {
        await q.query('SELECT * FROM t WHERE id = $1 FOR UPDATE', [1]);
        locked();
        await stopped;
        await q.query('UPDATE t SET v = 100 WHERE id = $1', [1]);
      });
      await holding;
      await db.query('UPDATE t SET v = v + 1 WHERE id = $1', [1]);
      wake();
      // Woken, it finds its session gone: its write fails, it does not crash the process.
      await expect(stalled).rejects.toThrow();
      expect(await db.query('SELECT v FROM t')).toEqual([{ v: 1 }]);
    } finally {
      await db.close();
      await stuck.close();
    }
  });

  it('runs a statement again when the server picked it to break a deadlock', async () => {
    const url = await fresh();
    const setup = await openPgDb(url);
    await setup.query('CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)');
    await setup.query('INSERT INTO t VALUES (1, 0), (2, 0)');
    // Sessions opened from now on look for deadlocks first, so ours is the one the server rolls back.
    await setup.query(`ALTER DATABASE ${url.split('/').pop()} SET deadlock_timeout = '50ms'`);
    await setup.close();
    const db = await openPgDb(url);
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      await other.query(`SET deadlock_timeout = '10s'`);
      await other.query('BEGIN');
      await other.query('UPDATE t SET v = v + 10 WHERE id = 2');
      // Ours takes row 1 and waits for row 2; theirs then waits for row 1: a deadlock.
      const ours = db.query('UPDATE t SET v = v + 1 WHERE id IN (1, 2)');
      await lockWaits(other, 1);
      await other.query('UPDATE t SET v = v + 10 WHERE id = 1');
      await other.query('COMMIT');
      await ours;
      expect(await db.query('SELECT id, v FROM t ORDER BY id')).toEqual([
        { id: 1, v: 11 },
        { id: 2, v: 11 },
      ]);
    } finally {
      await other.end();
      await db.close();
    }
  });

  it('rolls a failed transaction back whole', async () => {
    const db = await openPgDb(await fresh());
    try {
      await db.query('CREATE TABLE t (v INTEGER)');
      await expect(
        db.tx(async (q) => {
          await q.query('INSERT INTO t VALUES ($1)', [1]);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await db.query('SELECT * FROM t')).toEqual([]);
    } finally {
      await db.close();
    }
  });

  it('keeps the database clock, or the injected one as it is', async () => {
    const url = await fresh();
    const db = await openPgDb(url);
    const fixed = await openPgDb(url, { now: () => 42 });
    try {
      const [row] = await db.query<{ t: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t');
      expect(Math.abs(db.now() - row!.t)).toBeLessThan(1_000);
      expect(fixed.now()).toBe(42);
    } finally {
      await db.close();
      await fixed.close();
    }
  });

  it('notifies shop_wake listeners when the transaction commits, and not when it rolls back', async () => {
    const url = await fresh();
    const db = await openPgDb(url);
    const listener = new pg.Client({ connectionString: url });
    await listener.connect();
    try {
      const got: string[] = [];
      const arrived = new Promise<void>((resolve) =>
        listener.on('notification', (m) => {
          got.push(String(m.payload));
          if (m.payload === 'answer:2') resolve();
        }),
      );
      await listener.query(`LISTEN ${WAKE_CHANNEL}`);
      await db.tx((q) => db.notify(q, 'run', 1));
      await db
        .tx(async (q) => {
          await db.notify(q, 'stop', 7);
          throw new Error('no');
        })
        .catch(() => {});
      await db.tx((q) => db.notify(q, 'answer', 2));
      await arrived;
      expect(got).toEqual(['run:1', 'answer:2']);
    } finally {
      await listener.end();
      await db.close();
    }
  });
});

describe('migratePg', () => {
  it('brings concurrent first opens to SCHEMA_VERSION once, without racing', async () => {
    const url = await fresh();
    const dbs = await Promise.all([1, 2, 3, 4].map(() => openPgDb(url)));
    try {
      await Promise.all(dbs.map((db) => migratePg(db)));
      expect(await dbs[0]!.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      const tables = await dbs[0]!.query<{ t: string }>(
        `SELECT tablename AS t FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`,
      );
      expect(tables.map((r) => r.t)).toEqual([
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
        'schema_meta',
        'sent_events',
        'sessions',
        'settings',
        'timers',
        'workers',
      ]);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });

  it('brings a schema-11 store to 12: runs and calls may wait on the world, calls say on what', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query(`ALTER TABLE runs DROP CONSTRAINT runs_status_check;
        ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN ('running','waiting_human','completed','stuck','failed'));
        ALTER TABLE executions DROP COLUMN wait_kind; ALTER TABLE executions DROP COLUMN wait_until`);
      const insert = `INSERT INTO runs (spec, workflow_path, prompt, status, workspace, seed, created_at, updated_at) VALUES ('s', '/s.lua', '', 'waiting', '/w', 1, 1, 1)`;
      await expect(db.query(insert)).rejects.toThrow(/runs_status_check/);
      await db.query('UPDATE schema_meta SET version = 11');
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      await db.query(insert);
      const cols = await db.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'executions' AND column_name IN ('wait_kind', 'wait_until') ORDER BY 1`,
      );
      expect(cols.map((c) => c.column_name)).toEqual(['wait_kind', 'wait_until']);
    } finally {
      await db.close();
    }
  });

  it('brings a schema-13 store to 14: runs may be queued, with the queue columns; schedules and hooks get tables', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query(`DROP TABLE schedule_slots; DROP TABLE schedules; DROP TABLE hook_deliveries; DROP TABLE hooks;
        ALTER TABLE runs DROP COLUMN priority; ALTER TABLE runs DROP COLUMN queue_key; ALTER TABLE runs DROP COLUMN concurrency;
        ALTER TABLE runs DROP COLUMN trigger_json; ALTER TABLE runs DROP COLUMN start_id;
        ALTER TABLE runs DROP CONSTRAINT runs_status_check;
        ALTER TABLE runs ADD CONSTRAINT runs_status_check CHECK (status IN ('running','waiting','waiting_human','completed','stuck','failed'));
        UPDATE schema_meta SET version = 13`);
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      await db.query(`INSERT INTO runs (spec, workflow_path, prompt, status, workspace, seed, priority, queue_key, created_at, updated_at)
        VALUES ('d', '/d.lua', '', 'queued', '/', 1, 2, 'prod', 1, 1)`);
      await expect(db.query(`UPDATE runs SET status = 'bogus'`)).rejects.toThrow(/check/i);
      await db.query(`INSERT INTO hooks (name, workflow, created_at, created_by) VALUES ('gh', 'triage', 1, 'ann')`);
      await expect(
        db.query(`INSERT INTO hooks (name, created_at, created_by) VALUES ('none', 1, 'ann')`),
      ).rejects.toThrow(/check/i);
    } finally {
      await db.close();
    }
  });

  it('brings a schema-15 store to 16: a call keeps the tokens its agents reported', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query(`ALTER TABLE executions DROP COLUMN input_tokens, DROP COLUMN output_tokens,
        DROP COLUMN cache_read_tokens, DROP COLUMN cache_write_tokens; UPDATE schema_meta SET version = 15`);
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      const cols = await db.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'executions' AND column_name LIKE '%_tokens' ORDER BY 1`,
      );
      expect(cols.map((c) => c.column_name)).toEqual([
        'cache_read_tokens',
        'cache_write_tokens',
        'input_tokens',
        'output_tokens',
      ]);
    } finally {
      await db.close();
    }
  });

  it('brings a schema-14 store to 15: workers say which runs they leave to others', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query(`INSERT INTO workers (id, host, pid, project, started_at, heartbeat_at) VALUES ('w', 'h', 1, 'p', 1, 1);
        ALTER TABLE workers DROP COLUMN left_runs; UPDATE schema_meta SET version = 14`);
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      expect(await db.query('SELECT id, left_runs FROM workers')).toEqual([{ id: 'w', left_runs: null }]);
    } finally {
      await db.close();
    }
  });

  it('brings a schema-12 store to 13: people get their kind, the rows there stay login links', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query('ALTER TABLE people DROP COLUMN kind');
      await db.query(`INSERT INTO people (name, token_hash, created_at, created_by) VALUES ('ann', 'h1', 1, 'root')`);
      await db.query('UPDATE schema_meta SET version = 12');
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      expect(await db.query('SELECT name, kind FROM people')).toEqual([{ name: 'ann', kind: 'login' }]);
      await expect(
        db.query(
          `INSERT INTO people (name, token_hash, created_at, created_by, kind) VALUES ('x', 'h2', 1, 'r', 'key')`,
        ),
      ).rejects.toThrow(/check/i);
    } finally {
      await db.close();
    }
  });

  it('brings a schema-10 store up: ended web sessions get their table', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query('DROP TABLE ended_sessions');
      await db.query('UPDATE schema_meta SET version = 10');
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      await db.query(`INSERT INTO ended_sessions (id, ended_at, expires_at) VALUES ('s1', 1, 2)`);
      expect(await db.query('SELECT id FROM ended_sessions')).toEqual([{ id: 's1' }]);
    } finally {
      await db.close();
    }
  });

  it('brings a schema-11 store to 12: sent events and their takes get their tables', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query('DROP TABLE event_takes; DROP TABLE sent_events');
      await db.query('UPDATE schema_meta SET version = 11');
      await migratePg(db);
      expect(await db.query('SELECT version FROM schema_meta')).toEqual([{ version: SCHEMA_VERSION }]);
      await db.query(
        `INSERT INTO sent_events (name, sent_at, sent_by, channel) VALUES ('ci.finished', 1, 'ann', 'cli')`,
      );
      expect(await db.query('SELECT name, event_key FROM sent_events')).toEqual([
        { name: 'ci.finished', event_key: null },
      ]);
      expect(await db.query('SELECT count(*)::int AS n FROM event_takes')).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });

  it('refuses a store written by a newer Shop', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query('UPDATE schema_meta SET version = $1', [SCHEMA_VERSION + 1]);
      await expect(migratePg(db)).rejects.toThrow(
        `the store was written by a newer Shop (schema ${SCHEMA_VERSION + 1} > ${SCHEMA_VERSION}); upgrade Shop`,
      );
    } finally {
      await db.close();
    }
  });

  it('keeps the audit trail append-only, but for a whole run deleted in prune’s transaction', async () => {
    const db = await openPgDb(await fresh());
    try {
      await migratePg(db);
      await db.query(
        `INSERT INTO runs (spec, workflow_path, prompt, status, workspace, seed, created_at, updated_at) VALUES ('s', 'p', 'x', 'running', '/w', 1, 1, 1)`,
      );
      await db.query(
        `INSERT INTO events (run_id, id, type, actor, channel, at) VALUES (1, 1, 'run_started', 'ann', 'cli', 1)`,
      );
      await expect(db.query(`UPDATE events SET actor = 'bob'`)).rejects.toThrow('events are append-only');
      await expect(db.query('DELETE FROM events')).rejects.toThrow('events are append-only');
      await db.tx(async (q) => {
        await q.query(`SELECT set_config('shop.deleting_run', $1, true)`, ['1']);
        await q.query('DELETE FROM events WHERE run_id = $1', [1]);
      });
      expect(await db.query('SELECT * FROM events')).toEqual([]);
    } finally {
      await db.close();
    }
  });
});

/** Until `count` sessions of the database wait for a lock. */
async function lockWaits(c: pg.Client, count: number) {
  for (let i = 0; i < 1000; i++) {
    const { rows } = await c.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
    );
    if (rows[0].n >= count) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}
