import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

/** listRuns and countRuns: filters, newest first, a limit, and the extras of the runs picked. */
const stores: Store[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

const T = 'token';
const owner = { token: T, host: 'h', pid: 1, pidStart: '1', leaseUntil: Date.now() * 2 };
const newRun = (spec: string) => ({ spec, workflowPath: `/p/${spec}.lua`, workflowHash: null, prompt: '', workspace: '/p', branch: null, seed: 1, owner, actor: 'ann' });

/** Runs 1…n; every third one waits, every fifth one failed; each has a call costing $0.25. */
async function storeWith(n: number) {
  let t = 1_000;
  const store = openSqliteStore(join(mkdtempSync(join(tmpdir(), 'shop-list-')), 'shop.db'), () => (t += 10));
  stores.push(store);
  for (let i = 1; i <= n; i++) {
    const run = await store.createRun(newRun(`wf${i}`));
    await store.startExecution(T, { runId: run.id, key: '1', kind: 'run', agent: 'coder', fingerprint: 'f', sessionId: `s${i}`, cwd: '/p', prompt: 'go', request: {}, signalPath: null });
    if (i % 3 === 0) await store.markWaiting(T, run.id, '1', { waitingFor: `question ${i}`, awaiting: 'input', metrics: { costUsd: 0.25, numTurns: 1, durationMs: 1 } }, 'waiting_human');
    else await store.completeExecution(T, run.id, '1', { status: 'DONE' }, { costUsd: 0.25, numTurns: 1, durationMs: 1 });
    if (i % 5 === 0) await store.finishRun(T, run.id, { status: 'failed', reason: 'boom', event: { type: 'failed', actor: 'shop', channel: 'cli' } });
  }
  return store;
}

describe('listRuns', () => {
  it('lists newest first, at most `limit`, each with its waiting call and cost', async () => {
    const store = await storeWith(12);
    const page = await store.listRuns({ limit: 4 });
    expect(page.map((r) => r.id)).toEqual([12, 11, 10, 9]);
    expect(page.find((r) => r.id === 12)!.waiting).toMatchObject({ key: '1', waitingFor: 'question 12' });
    expect(page.find((r) => r.id === 11)!.waiting).toBeNull();
    expect(page.every((r) => r.costUsd === 0.25)).toBe(true);
    expect((await store.listRuns()).map((r) => r.id)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1]);
    expect(await store.listRuns({ limit: 0 })).toHaveLength(12);
  });

  it('filters by status and activity in the query, and counts what matches regardless of the limit', async () => {
    const store = await storeWith(15);
    expect((await store.listRuns({ status: 'failed' })).map((r) => r.id)).toEqual([15, 10, 5]);
    expect((await store.listRuns({ status: 'waiting_human', limit: 2 })).map((r) => r.id)).toEqual([12, 9]);
    expect(await store.countRuns({ status: 'waiting_human', limit: 2 })).toBe(4);
    expect(await store.countRuns({ active: true })).toBe(12);
    expect(await store.countRuns()).toBe(15);
    expect((await store.listRuns({ active: true, limit: 3 })).map((r) => r.id)).toEqual([14, 13, 12]);
    expect(await store.listRuns({ status: 'stuck' })).toEqual([]);
  });

  it('reads only the runs changed since a time', async () => {
    const store = await storeWith(6);
    const last = (await store.listRuns({ limit: 1 }))[0];
    expect((await store.listRuns({ changedSince: last.updatedAt - 1 })).map((r) => r.id)).toEqual([6]);
  });
});
