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

const T = 'token-a';
let t = 1_000;
const newRun = (leaseMs: number) => ({
  spec: 'f',
  workflowPath: '/p/f.lua',
  workflowHash: 'h',
  prompt: 'x',
  workspace: '/p',
  branch: null,
  seed: 1,
  owner: { token: T, host: 'h', pid: 1, pidStart: '1' },
  leaseMs,
  actor: 'ann',
});
const end = (store: Store, id: number) =>
  store.finishRun(T, id, { status: 'completed', event: { type: 'completed', actor: 'shop', channel: 'engine' } });

function fresh() {
  const file = join(tempDir('shop-delete-'), 'shop.db');
  const store = openSqliteStore(file, () => ++t);
  open.push(store);
  return { file, store };
}

describe('deleteRun (shop prune)', () => {
  it('deletes an ended run with every row naming it, in one go, and keeps the audit trail append-only for the others', async () => {
    const { file, store } = fresh();
    const gone = await store.createRun(newRun(0));
    const kept = await store.createRun(newRun(0));
    await store.startExecution(T, {
      runId: gone.id,
      key: '1',
      kind: 'run',
      agent: 'a',
      fingerprint: 'f',
      sessionId: 's',
      cwd: '/p',
      prompt: 'p',
      request: {},
      signalPath: null,
    });
    await end(store, gone.id);
    expect(await store.deleteRun(gone.id)).toBe('deleted');
    expect(await store.getRun(gone.id)).toBeNull();
    const db = new Database(file);
    open.push(db);
    for (const table of ['executions', 'events', 'answers', 'timers']) {
      expect([
        table,
        (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE run_id = ?`).get(gone.id) as { n: number }).n,
      ]).toEqual([table, 0]);
    }
    // The trigger is back: another run's trail still cannot be deleted.
    expect(() => db.prepare('DELETE FROM events WHERE run_id = ?').run(kept.id)).toThrow(/append-only/);
    expect(await store.deleteRun(gone.id)).toBe('missing');
  });
});
