import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SCHEMA_VERSION } from '../schema-version.js';
import { openSqliteStore } from './sqlite-store.js';
import { prepare } from './statements.js';
import type { NewExecution, Store } from '../store.js';
import { tempDir } from '../../testing/temp-dir.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function fresh() {
  const file = join(tempDir('shop-store-'), 'shop.db');
  let t = 1_000;
  const store = openSqliteStore(file, () => ++t);
  open.push(store);
  return { file, store };
}

/** A second, raw connection to the same file: what another process would see. */
function raw(file: string) {
  const db = new Database(file);
  open.push(db);
  return db;
}

const T = 'token-a';
const owner = (token = T) => ({ token, host: 'h', pid: 1, pidStart: '1' });
const newRun = {
  spec: 'feature',
  workflowPath: '/p/workflows/feature.lua',
  workflowHash: 'abc',
  prompt: 'add login',
  workspace: '/p',
  branch: null,
  seed: 9,
  owner: owner(),
  leaseMs: 1e12,
  actor: 'ann',
};
const exec = (runId: number, key: string, over: Partial<NewExecution> = {}): NewExecution => ({
  runId,
  key,
  kind: 'run',
  agent: 'coder',
  fingerprint: 'run("coder")',
  sessionId: `s-${key}`,
  cwd: '/p',
  prompt: 'go',
  request: {},
  signalPath: null,
  ...over,
});
const answerBy = (runId: number, key: string, status: string, responder = 'ann') => ({
  ask: 1,
  verdict: null,
  decisions: null,
  runId,
  key,
  status,
  message: null,
  responder,
  channel: 'cli' as const,
});
const eventTypes = async (store: Store, id: number) => (await store.listEvents(id)).map((e) => e.type);

describe('SqliteStore on a real file', () => {
  it('turns WAL on and sets the schema version', () => {
    const { file } = fresh();
    const db = raw(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBe(16);
  });

  it('makes a new store small: 2 KiB pages, no schema comments, one b-tree per small keyed table', () => {
    const { file, store } = fresh();
    store.close();
    open.pop();
    const db = raw(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(db.pragma('page_size', { simple: true })).toBe(2048);
    const pages = Number(db.pragma('page_count', { simple: true }));
    // 46 pages (92 KiB); with 4 KiB pages, the comments and a key index beside each small table, 55 (220 KiB).
    expect(pages * 2048).toBeLessThan(100 * 1024);
    const comments = db.prepare(`SELECT name FROM sqlite_schema WHERE sql LIKE '%--%'`).all();
    expect(comments).toEqual([]);
  });

  it('keeps the page size of a store made before (4 KiB) and opens it as it is', async () => {
    const file = join(tempDir('shop-store-'), 'shop.db');
    const before = new Database(file);
    before.pragma('journal_mode = WAL');
    before.exec('CREATE TABLE older (x)');
    before.close();
    const store = openSqliteStore(file);
    open.push(store);
    const run = await store.createRun(newRun);
    expect((await store.getRun(run.id))?.prompt).toBe('add login');
    expect(raw(file).pragma('page_size', { simple: true })).toBe(4096);
  });

  it('brings a schema-10 store up: ended web sessions get their table, runs their rules and holds', async () => {
    const { file, store } = fresh();
    store.close();
    open.pop();
    const db = new Database(file);
    db.exec(
      'DROP TABLE ended_sessions; DROP INDEX runs_held; ALTER TABLE runs DROP COLUMN held; ALTER TABLE runs DROP COLUMN rules',
    );
    db.pragma('user_version = 10');
    db.close();
    const again = openSqliteStore(file);
    open.push(again);
    await again.endWebSession('s1', Date.now() + 60_000);
    expect(await again.webSessionEnded('s1')).toBe(true);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect((raw(file).prepare('PRAGMA table_info(runs)').all() as { name: string }[]).map((c) => c.name)).toEqual(
      expect.arrayContaining(['rules', 'held']),
    );
  });

  it('brings a schema-13 store to 14: runs may be queued (the CHECK widened in place, rows kept), with the queue columns; schedules and hooks get tables', async () => {
    const { file, store } = fresh();
    const run = await store.createRun(newRun);
    store.close();
    open.pop();
    const db = new Database(file);
    db.exec(`DROP INDEX runs_queued; DROP INDEX runs_concurrency; DROP INDEX runs_start_id;
      DROP TABLE schedule_slots; DROP TABLE schedules; DROP TABLE hook_deliveries; DROP TABLE hooks;
      ALTER TABLE runs DROP COLUMN priority; ALTER TABLE runs DROP COLUMN queue_key; ALTER TABLE runs DROP COLUMN concurrency;
      ALTER TABLE runs DROP COLUMN trigger_json; ALTER TABLE runs DROP COLUMN start_id;`);
    db.unsafeMode(true);
    db.pragma('writable_schema = ON');
    db.prepare(`UPDATE sqlite_master SET sql = replace(sql, '''queued'',', '') WHERE name = 'runs'`).run();
    db.pragma('writable_schema = OFF');
    db.pragma('user_version = 13');
    db.close();
    expect(() => raw(file).prepare(`UPDATE runs SET status = 'queued'`).run()).toThrow(/CHECK constraint failed/);
    const again = openSqliteStore(file);
    open.push(again);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(await again.getRun(run.id)).toMatchObject({ status: 'running', priority: 0, queueKey: null, trigger: null });
    const { run: queued } = await again.queueRun({
      ...newRun,
      priority: 1,
      queueKey: 'prod',
      concurrency: 1,
      trigger: { kind: 'cli', name: null, by: 'ann', data: null },
      startId: 'x',
    });
    expect(queued.status).toBe('queued');
    expect(() => raw(file).prepare(`UPDATE runs SET status = 'bogus'`).run()).toThrow(/CHECK constraint failed/);
    raw(file)
      .prepare(
        `INSERT INTO schedules (name, workflow, cron, tz, overlap, catch_up, created_at, created_by)
      VALUES ('n', 'w', '* * * * *', 'UTC', 'skip', 'latest', 1, 'ann')`,
      )
      .run();
  });

  it('brings a schema-15 store to 16: a call keeps the tokens its agents reported', async () => {
    const { file, store } = fresh();
    const run = await store.createRun(newRun);
    store.close();
    open.pop();
    const db = new Database(file);
    for (const c of ['input_tokens', 'output_tokens', 'cache_read_tokens', 'cache_write_tokens'])
      db.exec(`ALTER TABLE executions DROP COLUMN ${c}`);
    db.pragma('user_version = 15');
    db.close();
    const again = openSqliteStore(file);
    open.push(again);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    await again.startExecution(T, exec(run.id, '1'));
    await again.completeExecution(T, run.id, '1', 'ok', {
      costUsd: 0.1,
      numTurns: 1,
      durationMs: 1,
      tokens: { input: 7, output: 8, cacheRead: null, cacheWrite: 9 },
    });
    expect((await again.getExecution(run.id, '1'))?.tokens).toEqual({
      input: 7,
      output: 8,
      cacheRead: null,
      cacheWrite: 9,
    });
  });

  it('brings a schema-14 store to 15: workers say which runs they leave to others', async () => {
    const { file, store } = fresh();
    await store.registerWorker({ id: 'w', host: 'h', pid: 1, pidStart: null, project: 'p', maxParallel: null });
    store.close();
    open.pop();
    const db = new Database(file);
    db.exec('ALTER TABLE workers DROP COLUMN left_runs');
    db.pragma('user_version = 14');
    db.close();
    const again = openSqliteStore(file);
    open.push(again);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(await again.listWorkers()).toMatchObject([{ id: 'w', left: [] }]);
    await again.heartbeatWorker('w', { runsHeld: 0, agents: 0, left: [{ runId: 3, spec: 'deploy', reason: 'x' }] });
    expect((await again.listWorkers())[0]!.left).toEqual([{ runId: 3, spec: 'deploy', reason: 'x' }]);
  });

  it('brings a schema-12 store to 13: people get their kind, the rows there stay login links', async () => {
    const { file, store } = fresh();
    await store.addPerson({ name: 'ann', tokenHash: 'h1', by: 'root' });
    store.close();
    open.pop();
    const old = new Database(file);
    old.exec('ALTER TABLE people DROP COLUMN kind');
    old.pragma('user_version = 12');
    old.close();
    const again = openSqliteStore(file);
    open.push(again);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(await again.findPersonByTokenHash('h1')).toMatchObject({ name: 'ann', kind: 'login' });
    expect(() =>
      raw(file)
        .prepare(
          `INSERT INTO people (name, token_hash, created_at, created_by, kind) VALUES ('x', 'h2', 1, 'r', 'key')`,
        )
        .run(),
    ).toThrow(/CHECK constraint failed/);
  });

  it('brings a schema-11 store to 12: runs and calls may wait on the world (the CHECKs widened in place, rows kept); sent events and their takes get their tables', async () => {
    const { file, store } = fresh();
    const run = await store.createRun(newRun);
    store.close();
    open.pop();
    const db = new Database(file);
    // The schema-11 tables: the status CHECKs without 'waiting', no wait columns.
    db.unsafeMode(true);
    db.pragma('writable_schema = ON');
    db.prepare(
      `UPDATE sqlite_master SET sql = replace(sql, ?, ?) WHERE type = 'table' AND name IN ('runs', 'executions')`,
    ).run(`'running','waiting','waiting_human'`, `'running','waiting_human'`);
    db.pragma('writable_schema = OFF');
    db.unsafeMode(false);
    db.close();
    const old = new Database(file);
    old.exec(
      'ALTER TABLE executions DROP COLUMN wait_kind; ALTER TABLE executions DROP COLUMN wait_until; DROP TABLE event_takes; DROP TABLE sent_events',
    );
    expect(() => old.prepare(`UPDATE runs SET status = 'waiting' WHERE id = ?`).run(run.id)).toThrow(
      /CHECK constraint failed/,
    );
    old.pragma('user_version = 11');
    old.close();
    const again = openSqliteStore(file);
    open.push(again);
    expect(raw(file).pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(raw(file).pragma('integrity_check', { simple: true })).toBe('ok');
    raw(file).prepare(`UPDATE runs SET status = 'waiting' WHERE id = ?`).run(run.id);
    expect(await again.getRun(run.id)).toMatchObject({ id: run.id, spec: newRun.spec, status: 'waiting' });
    expect((raw(file).prepare('PRAGMA table_info(executions)').all() as { name: string }[]).map((c) => c.name)).toEqual(
      expect.arrayContaining(['wait_kind', 'wait_until']),
    );
    const { event } = await again.sendEvent({
      name: 'ci.finished',
      key: null,
      data: { ok: true },
      sentBy: 'ann',
      channel: 'cli',
      runId: null,
      sendId: 'x',
    });
    expect(await again.listSentEvents()).toEqual([event]);
  });

  it('refuses a store written by a newer Shop', () => {
    const { file, store } = fresh();
    store.close();
    open.pop();
    const db = new Database(file);
    db.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    db.close();
    expect(() => openSqliteStore(file)).toThrow(/newer Shop/);
  });

  it('events and answers cannot be changed or deleted', async () => {
    const { file, store } = fresh();
    const run = await store.createRun(newRun);
    await store.startExecution(T, exec(run.id, '1'));
    await store.markWaiting(T, run.id, '1', { waitingFor: 'Which database?', awaiting: 'input' }, 'waiting_human');
    await store.recordAnswer(answerBy(run.id, '1', 'DONE'));
    const db = raw(file);
    expect(() => db.prepare("UPDATE events SET actor = 'mallory'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    expect(() => db.prepare("UPDATE answers SET status = 'STOP'").run()).toThrow(/immutable/);
    expect(await eventTypes(store, run.id)).toEqual(['run_started', 'execution_started', 'waiting', 'human_answered']);
  });
});

describe('query plans', () => {
  it("no statement reads every run's calls, events or answers: each goes by a key or an index", () => {
    const { file } = fresh();
    const db = raw(file);
    const scans: string[] = [];
    for (const [name, statement] of Object.entries(prepare(db))) {
      const sql = statement.source;
      // Unbound parameters read as NULL, which is all a plan needs.
      const named = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], null]));
      const positional = (sql.replace(/'[^']*'/g, '').match(/\?/g) ?? []).map(() => null);
      const plan = db
        .prepare(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...(Object.keys(named).length ? [named] : positional)) as { detail: string }[];
      for (const { detail } of plan)
        if (/^SCAN (executions|events|answers|e|a)\b/.test(detail)) scans.push(`${name}: ${detail}`);
    }
    expect(scans).toEqual([]);
  });
});

describe('migration from schema 1', () => {
  it('keeps every run and numbers the completed calls in call order as their delivery order', async () => {
    const file = join(tempDir('shop-store-'), 'shop.db');
    const db = new Database(file);
    db.exec(V1_SCHEMA);
    db.exec(`INSERT INTO runs (id, spec, workflow_path, prompt, status, workspace, seed, owner_pid, lease_until, created_at, updated_at)
      VALUES (1, 'feature', '/p/f.lua', 'x', 'waiting_human', '/p', 5, 4242, 99, 1, 1);
      INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, result, started_at, updated_at) VALUES
      (1, '1', 1, 'run', 'coder', 'run("coder")', 'completed', '{"status":"DONE"}', 1, 1),
      (1, '2', 2, 'sh', NULL, 'sh("make")', 'completed', '{"code":0}', 1, 1),
      (1, '3', 3, 'pause', '_checkpoint', 'pause("Go?")', 'waiting_human', NULL, 1, 1);
      INSERT INTO runs (id, spec, workflow_path, prompt, status, workspace, seed, created_at, updated_at)
      VALUES (2, 'bugfix', '/p/b.lua', 'y', 'completed', '/p', 6, 1, 1);
      INSERT INTO events (id, run_id, call_key, type, actor, channel, data, at) VALUES
      (1, 1, NULL, 'run_started', 'ann', 'cli', NULL, 1), (2, 2, NULL, 'run_started', 'bob', 'cli', NULL, 1),
      (3, 1, '1', 'execution_started', 'shop', 'engine', NULL, 1), (4, 2, NULL, 'completed', 'shop', 'engine', NULL, 1);
      PRAGMA user_version = 1;`);
    db.close();
    const store = openSqliteStore(file);
    open.push(store);
    expect(await store.getRun(1)).toMatchObject({
      status: 'waiting_human',
      seed: 5,
      owner: null,
      workflowHash: null,
      stop: null,
      rules: null,
      held: null,
    });
    expect((await store.loadReplayLog(1)).map((r) => [r.key, r.delivered])).toEqual([
      ['1', 1],
      ['2', 2],
      ['3', null],
    ]);
    expect((await store.listEvents(1)).map((e) => [e.id, e.type])).toEqual([
      [1, 'run_started'],
      [3, 'execution_started'],
    ]);
    expect((await store.listEvents(2)).map((e) => [e.id, e.type])).toEqual([
      [2, 'run_started'],
      [4, 'completed'],
    ]);
    // The run's counters go on from what it had: the next call, delivery and event follow them.
    await store.claimRun(1, { token: T, host: 'h', pid: 1, pidStart: null }, 60_000, null);
    await store.startExecution(T, {
      runId: 1,
      key: '4',
      kind: 'sh',
      agent: null,
      fingerprint: 'sh("x")',
      sessionId: null,
      cwd: null,
      prompt: 'x',
      request: null,
      signalPath: null,
    });
    expect(await store.completeExecution(T, 1, '4', { code: 0 })).toBe(3);
    expect((await store.loadExecutions(1)).map((e) => [e.key, e.seq, e.delivered])).toEqual([
      ['1', 1, 1],
      ['2', 2, 2],
      ['3', 3, null],
      ['4', 4, 3],
    ]);
    expect((await store.listEvents(1, 3)).map((e) => [e.id, e.type])).toEqual([
      [4, 'execution_started'],
      [5, 'execution_finished'],
    ]);
  });
});

const V1_SCHEMA = `
CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, spec TEXT NOT NULL, workflow_path TEXT NOT NULL, prompt TEXT NOT NULL,
  status TEXT NOT NULL, workspace TEXT NOT NULL, branch TEXT, reason TEXT, result TEXT, seed INTEGER NOT NULL, owner_pid INTEGER,
  lease_until INTEGER, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, ended_at INTEGER);
CREATE TABLE executions (run_id INTEGER NOT NULL, call_key TEXT NOT NULL, seq INTEGER NOT NULL, kind TEXT NOT NULL, agent TEXT,
  fingerprint TEXT NOT NULL, status TEXT NOT NULL, session_id TEXT, cwd TEXT, prompt TEXT, request TEXT, result TEXT, signal_path TEXT,
  waiting_for TEXT, awaiting TEXT, error TEXT, cost_usd REAL, num_turns INTEGER, duration_ms INTEGER, pid INTEGER,
  attempts INTEGER NOT NULL DEFAULT 1, ask INTEGER NOT NULL DEFAULT 0, started_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
  finished_at INTEGER, PRIMARY KEY (run_id, call_key));
CREATE TABLE answers (run_id INTEGER NOT NULL, call_key TEXT NOT NULL, ask INTEGER NOT NULL, verdict TEXT, status TEXT, message TEXT,
  decisions TEXT, responder TEXT NOT NULL, channel TEXT NOT NULL, answered_at INTEGER NOT NULL, PRIMARY KEY (run_id, call_key, ask));
CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL, call_key TEXT, type TEXT NOT NULL, actor TEXT NOT NULL,
  channel TEXT NOT NULL, data TEXT, at INTEGER NOT NULL);
`;
