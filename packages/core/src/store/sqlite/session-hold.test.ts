import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from '../store.js';
import { tempDir } from '../../testing/temp-dir.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

const T = 'driver-token';
function fresh() {
  const file = join(tempDir('shop-hold-'), 'shop.db');
  let t = 1_000;
  const store = openSqliteStore(file, () => ++t);
  open.push(store);
  return { file, store };
}

/** A run whose call 1 (coder, session s-1) waits for a person on ask 1. */
async function waiting(store: Store) {
  const run = await store.createRun({
    spec: 'bugfix',
    workflowPath: '/p/b.lua',
    workflowHash: null,
    prompt: 'x',
    workspace: '/p',
    branch: null,
    seed: 1,
    owner: { token: T, host: 'h', pid: 1, pidStart: '1' },
    leaseMs: 1e12,
    actor: 'ann',
  });
  await store.startExecution(T, {
    runId: run.id,
    key: '1',
    kind: 'run',
    agent: 'coder',
    fingerprint: 'f',
    sessionId: 's-1',
    cwd: '/p',
    prompt: 'go',
    request: {},
    signalPath: null,
  });
  await store.markWaiting(T, run.id, '1', { waitingFor: 'Which database?', awaiting: 'input' }, 'waiting_human');
  return run.id;
}

describe('migration from schema 5', () => {
  it('adds the holds; a call past its first attempt, with a pid or ended counts as started, a running first attempt without one does not', async () => {
    const { file, store } = fresh();
    const id = await waiting(store);
    await store.startExecution(T, {
      runId: id,
      key: '2',
      kind: 'run',
      agent: 'coder',
      fingerprint: 'f',
      sessionId: 's-2',
      cwd: '/p',
      prompt: 'go',
      request: {},
      signalPath: null,
    });
    await store.startExecution(T, {
      runId: id,
      key: '3',
      kind: 'run',
      agent: 'coder',
      fingerprint: 'f',
      sessionId: 's-3',
      cwd: '/p',
      prompt: 'go',
      request: {},
      signalPath: null,
    });
    await store.setExecutionPid(T, id, '3', 99, null);
    store.close();
    open.splice(open.indexOf(store), 1);
    const db = new Database(file);
    for (const c of [
      'ask_decisions',
      'claim_timeout',
      'spawned',
      'hold_kind',
      'hold_token',
      'hold_by',
      'hold_host',
      'hold_pid',
      'hold_pid_start',
      'hold_since',
    ])
      db.exec(`ALTER TABLE executions DROP COLUMN ${c}`);
    db.exec('DROP INDEX runs_held');
    for (const c of ['rules', 'held']) db.exec(`ALTER TABLE runs DROP COLUMN ${c}`);
    db.pragma('user_version = 5');
    db.close();
    const migrated = openSqliteStore(file);
    open.push(migrated);
    expect((await migrated.loadExecutions(id)).map((e) => [e.key, e.spawned, e.hold])).toEqual([
      ['1', true, null],
      ['2', false, null],
      ['3', true, null],
    ]);
  });
});
