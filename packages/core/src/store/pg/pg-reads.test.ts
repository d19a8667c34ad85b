import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCluster, type Cluster } from '../../../../../scripts/pg-cluster.mjs';
import { openSqliteStore } from '../sqlite/sqlite-store.js';
import type { Store } from '../store.js';
import { migratePg } from './migrate-pg.js';
import { PgAccess } from './pg-access.js';
import { openPgDb, type PgDb } from './pg-db.js';
import { PgReads } from './pg-reads.js';
import { tempDir } from '../../testing/temp-dir.js';

/**
 * The same rows written into a SQLite store and a PostgreSQL one read back alike: every read
 * of the port, with the same results in the same order (ties included), and listRuns' filters.
 */
const NOW = 1_800_000_000_000;
type Rows = Record<string, Record<string, unknown>[]>;

const run = (id: number, status: string, extra: Record<string, unknown> = {}) => ({
  id,
  spec: 'feature',
  workflow_path: '/p/workflows/feature.lua',
  workflow_hash: 'h',
  prompt: `p${id}`,
  status,
  workspace: '/p',
  branch: null,
  reason: status === 'failed' ? 'boom' : null,
  result: status === 'completed' ? '{"ok":true}' : null,
  seed: 7,
  calls: 3,
  delivered: 2,
  events: 4,
  created_at: NOW - 10_000 + id,
  updated_at: NOW - 5_000 + (id % 3),
  ended_at: null,
  ...extra,
});
const exec = (runId: number, seq: number, status: string, extra: Record<string, unknown> = {}) => ({
  run_id: runId,
  call_key: String(seq),
  seq,
  kind: 'run',
  agent: seq === 2 ? 'coder' : 'planner',
  fingerprint: `f${seq}`,
  status,
  delivered: status === 'completed' ? seq : null,
  request: '{"a":1}',
  result: status === 'completed' ? `{"n":${seq}}` : null,
  cost_usd: 0.0125,
  ask: status === 'waiting_human' ? 1 : 0,
  started_at: NOW - 4_000,
  updated_at: NOW - 3_000,
  ...extra,
});

const ROWS: Rows = {
  runs: [
    run(1, 'completed', { ended_at: NOW - 100 }),
    run(2, 'waiting_human', { owner_token: 'tok', owner_host: 'h', owner_pid: 5, lease_until: NOW - 50 }),
    run(3, 'running', { owner_token: 'live', owner_host: 'h', owner_pid: 6, lease_until: NOW + 5_000 }),
    run(4, 'waiting_human'),
    run(5, 'failed', { ended_at: NOW - 20 }),
  ],
  executions: [
    exec(1, 1, 'completed'),
    exec(1, 2, 'completed', { cost_usd: 0.025 }),
    exec(2, 1, 'completed'),
    exec(2, 2, 'waiting_human', { waiting_for: 'ok?', updated_at: NOW - 3_000 }),
    exec(2, 3, 'waiting_human', { updated_at: NOW - 3_000 }),
    exec(3, 1, 'running', { activity: 'Edit a.ts', activity_at: NOW - 10 }),
    exec(3, 2, 'running', { attempt_at: NOW - 10, kind: 'sh' }),
    exec(4, 1, 'waiting_human', { updated_at: NOW - 3_500 }),
    exec(4, 2, 'waiting_human', { ask: 2, updated_at: NOW - 3_600, cost_usd: null }),
    exec(5, 1, 'failed', { error: 'x' }),
  ],
  answers: [
    { run_id: 4, call_key: '1', ask: 1, verdict: 'approved', responder: 'ann', channel: 'cli', answered_at: NOW - 300 },
    {
      run_id: 4,
      call_key: '2',
      ask: 1,
      verdict: 'rejected',
      message: 'no',
      responder: 'bob',
      channel: 'web',
      answered_at: NOW - 300,
    },
  ],
  claims: [
    { run_id: 2, call_key: '2', ask: 1, by: 'ann', channel: 'cli', claimed_at: NOW - 500, expires_at: NOW + 1_000 },
    { run_id: 2, call_key: '3', ask: 1, by: 'bob', channel: 'web', claimed_at: NOW - 5_000, expires_at: NOW - 1 },
    { run_id: 4, call_key: '2', ask: 2, by: 'cy', channel: 'tui', claimed_at: NOW - 400, expires_at: NOW + 1_000 },
    // On an answered ask: closed, whatever its time says.
    { run_id: 4, call_key: '1', ask: 1, by: 'dee', channel: 'cli', claimed_at: NOW - 400, expires_at: NOW + 1_000 },
  ],
  timers: [
    { id: 1, run_id: 2, call_key: '2', ask: 1, kind: 'remind', due_at: NOW - 10, data: '{"every":60}' },
    { id: 2, run_id: 2, call_key: '3', ask: 1, kind: 'timeout', due_at: NOW - 10, data: null },
    { id: 3, run_id: 4, call_key: '1', ask: 1, kind: 'escalate', due_at: NOW + 900, data: '{"to":["x"]}' },
    { id: 4, run_id: 4, call_key: '2', ask: 2, kind: 'timeout', due_at: NOW - 900, fired_at: NOW - 800, data: null },
  ],
  events: [1, 2, 3, 4].flatMap((runId) => [
    {
      run_id: runId,
      id: 1,
      type: 'run_started',
      actor: 'ann',
      channel: 'cli',
      data: '{"spec":"feature"}',
      at: NOW - 9_000,
    },
    { run_id: runId, id: 2, type: 'log', actor: 'lua', channel: 'engine', data: '{"text":"a"}', at: NOW - 8_000 },
    {
      run_id: runId,
      id: 3,
      type: 'log',
      call_key: '2',
      actor: 'lua',
      channel: 'engine',
      data: '{"text":"b","thread":"2/1"}',
      at: NOW - 7_000,
    },
    { run_id: runId, id: 4, type: 'log', actor: 'lua', channel: 'engine', data: '{"text":"c"}', at: NOW - 7_000 },
  ]),
  people: [
    {
      name: 'bob',
      token_hash: 'hb',
      created_at: NOW - 1,
      created_by: 'root',
      revoked_at: null,
      last_seen_at: NOW - 10,
    },
    { name: 'Ann', token_hash: 'ha', created_at: NOW - 2, created_by: 'root', revoked_at: NOW - 1, last_seen_at: null },
    { name: 'ann', token_hash: 'hc', created_at: NOW - 3, created_by: 'root', revoked_at: null, last_seen_at: null },
  ],
  settings: [{ name: 'public_url', value: 'https://x', updated_at: NOW }],
};

const insert = (table: string, row: Record<string, unknown>, mark: (i: number) => string) => {
  const cols = Object.keys(row);
  return `INSERT INTO ${table} (${cols.map((c) => `"${c}"`).join(', ')}) VALUES (${cols.map((_, i) => mark(i)).join(', ')})`;
};

let cluster: Cluster;
let dir: string;
let sqlite: Store;
let pgDb: PgDb;
let pg: PgReads;

beforeAll(async () => {
  cluster = await startCluster();
  dir = tempDir('shop-pg-reads-');
  const file = join(dir, 'shop.db');
  sqlite = openSqliteStore(file, () => NOW);
  const raw = new Database(file);
  pgDb = await openPgDb(await cluster.createDatabase('reads'), { now: () => NOW });
  await migratePg(pgDb);
  for (const [table, rows] of Object.entries(ROWS)) {
    for (const row of rows) {
      raw.prepare(insert(table, row, () => '?')).run(...Object.values(row));
      await pgDb.query(
        insert(table, row, (i) => `$${i + 1}`),
        Object.values(row),
      );
    }
  }
  raw.close();
  pg = new PgReads(pgDb);
});

afterAll(async () => {
  await pgDb?.close();
  await sqlite?.close();
  await cluster?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('PgReads reads what SqliteReads reads', () => {
  const same = async (read: (s: Pick<Store, keyof PgReads & keyof Store>) => Promise<unknown>) => {
    const want = await read(sqlite);
    expect(await read(pg as unknown as Store)).toEqual(want);
    return want;
  };

  it('runs: one, lists by every filter, counts, open ones, lapsed', async () => {
    expect(await same((s) => s.getRun(2))).toMatchObject({ id: 2, owner: { token: 'tok' } });
    expect(await same((s) => s.getRun(99))).toBeNull();
    for (const filter of [
      {},
      { limit: 2 },
      { active: true },
      { status: 'waiting_human' as const },
      { changedSince: NOW - 4_999 },
      { active: true, limit: 1 },
    ]) {
      await same((s) => s.listRuns(filter));
      await same((s) => s.countRuns(filter));
    }
    const listed = (await same((s) => s.listRuns())) as {
      id: number;
      waiting: { key: string } | null;
      running: { key: string } | null;
      costUsd: number;
    }[];
    expect(listed.map((r) => [r.id, r.waiting?.key ?? null, r.running?.key ?? null, r.costUsd])).toEqual([
      [5, null, null, 0.0125],
      [4, '2', null, 0.0125],
      [3, null, '2', 0.025],
      [2, '2', null, 0.0375],
      [1, null, null, 0.0375],
    ]);
    await same((s) => s.listOpenRuns());
    // Times with a fraction (a clock file's offset): PostgreSQL's bigint columns take them as SQLite does.
    expect(await same((s) => s.countRuns({ changedSince: NOW - 4_999.5 }))).toBe(4);
    await same((s) => s.lapsedSince(NOW - 1_000.5, NOW + 9_999.7));
    expect(((await same((s) => s.dueTimers(NOW - 9.5))) as unknown[]).length).toBe(2);
    expect(((await same((s) => s.dueTimers(NOW - 10.5))) as unknown[]).length).toBe(0);
    expect(((await same((s) => s.dueTimers(NOW - 10))) as unknown[]).length).toBe(2);
    expect(
      ((await same((s) => s.lapsedSince(NOW - 1_000, NOW + 10_000))) as { runId: number }[]).map((l) => l.runId),
    ).toEqual([3, 2, 2, 2, 4, 4]);
  });

  it('calls: waiting (claims joined while they last), open, all, the last few, totals, replay log, one', async () => {
    const waiting = (await same((s) => s.listWaiting())) as {
      execution: { runId: number; key: string; claim: unknown };
    }[];
    expect(waiting.map((w) => `${w.execution.runId}.${w.execution.key}`)).toEqual(['4.2', '2.2', '2.3']);
    expect(waiting.map((w) => (w.execution.claim as { by: string } | null)?.by ?? null)).toEqual(['cy', 'ann', null]);
    expect(await same((s) => s.answeredRuns())).toEqual([4]);
    for (const id of [1, 2, 3, 4, 99]) {
      await same((s) => s.openExecutions(id));
      await same((s) => s.loadExecutions(id));
      await same((s) => s.loadExecutions(id, 1));
      await same((s) => s.executionTotals(id));
      await same((s) => s.loadReplayLog(id));
      await same((s) => s.runCost(id));
    }
    expect(await same((s) => s.getExecution(4, '1'))).toMatchObject({ claim: null });
    expect(await same((s) => s.getExecution(2, '2'))).toMatchObject({ claim: { by: 'ann', until: NOW + 1_000 } });
    expect(await same((s) => s.getExecution(2, '9'))).toBeNull();
  });

  it('the audit trail, log counts, answers and timers', async () => {
    await same((s) => s.listEvents(2));
    await same((s) => s.listEvents(2, 2));
    await same((s) => s.lastEvents(3, 2));
    expect([...((await same((s) => s.countLogs(1))) as Map<string, number>)]).toEqual([
      ['', 2],
      ['2/1', 1],
    ]);
    await same((s) => s.getAnswer(4, '2', 1));
    expect(await same((s) => s.getAnswer(4, '2', 2))).toBeNull();
    expect(((await same((s) => s.listAnswers(4))) as { key: string }[]).map((a) => a.key)).toEqual(['1', '2']);
    expect(((await same((s) => s.dueTimers(NOW))) as { id: number }[]).map((t) => t.id)).toEqual([1, 2]);
    await same((s) => s.dueTimers(NOW, [4]));
    expect(await same((s) => s.nextTimer())).toBe(NOW - 10);
    expect(await same((s) => s.nextTimer([4]))).toBe(NOW + 900);
    expect(await same((s) => s.nextTimer([1]))).toBeNull();
  });

  it('settings and people (by name, as SQLite sorts it)', async () => {
    const access = new PgAccess(pgDb);
    expect(await access.getSetting('public_url')).toBe(await sqlite.getSetting('public_url'));
    expect((await access.listPeople()).map((p) => p.name)).toEqual((await sqlite.listPeople()).map((p) => p.name));
    expect((await access.listPeople()).map((p) => p.name)).toEqual(['Ann', 'ann', 'bob']);
  });
});
