import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, SessionHeldError } from '../errors.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

const T = 'driver-token';
function fresh() {
  const file = join(mkdtempSync(join(tmpdir(), 'shop-hold-')), 'shop.db');
  let t = 1_000;
  const store = openSqliteStore(file, () => ++t);
  open.push(store);
  return { file, store };
}

/** A run whose call 1 (coder, session s-1) waits for a person on ask 1. */
async function waiting(store: Store) {
  const run = await store.createRun({
    spec: 'bugfix', workflowPath: '/p/b.lua', workflowHash: null, prompt: 'x', workspace: '/p', branch: null, seed: 1,
    owner: { token: T, host: 'h', pid: 1, pidStart: '1', leaseUntil: Date.now() * 2 }, actor: 'ann',
  });
  await store.startExecution(T, { runId: run.id, key: '1', kind: 'run', agent: 'coder', fingerprint: 'f', sessionId: 's-1', cwd: '/p', prompt: 'go', request: {}, signalPath: null });
  await store.markWaiting(T, run.id, '1', { waitingFor: 'Which database?', awaiting: 'input' }, 'waiting_human');
  return run.id;
}

const person = (token: string, by = 'ann') => ({ token, by, host: 'h', pid: 4242, pidStart: '77' });
const answer = (runId: number) => ({ runId, key: '1', ask: 1, verdict: 'answer' as const, status: null, message: 'pg', decisions: null, responder: 'bob', channel: 'cli' as const });

describe('session holds: one process per session', () => {
  it("an agent step holds its session while it works (with the agent's pid), and lets go when it waits", async () => {
    const { store } = fresh();
    const run = await store.createRun({
      spec: 's', workflowPath: '/p', workflowHash: null, prompt: 'x', workspace: '/p', branch: null, seed: 1,
      owner: { token: T, host: 'box', pid: 1, pidStart: '1', leaseUntil: Date.now() * 2 }, actor: 'ann',
    });
    const e = await store.startExecution(T, { runId: run.id, key: '1', kind: 'run', agent: 'coder', fingerprint: 'f', sessionId: 's', cwd: '/p', prompt: 'go', request: {}, signalPath: null });
    expect(e).toMatchObject({ spawned: false, hold: { kind: 'agent', token: T, by: 'coder', host: 'box', pid: null } });
    await store.setExecutionPid(T, run.id, '1', 555, '9');
    expect(await store.getExecution(run.id, '1')).toMatchObject({ spawned: true, pid: 555, hold: { kind: 'agent', pid: 555, pidStart: '9' } });
    await store.markWaiting(T, run.id, '1', { waitingFor: 'q', awaiting: 'input' }, 'waiting_human');
    expect(await store.getExecution(run.id, '1')).toMatchObject({ spawned: true, hold: null });
  });

  it("a person's hold refuses answers and restarts, names who and since when; released, the answer is taken", async () => {
    const { store } = fresh();
    const id = await waiting(store);
    await store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
    expect(await store.getExecution(id, '1')).toMatchObject({ hold: { kind: 'continue', by: 'ann', pid: 4242 } });
    await expect(store.recordAnswer(answer(id))).rejects.toThrow(SessionHeldError);
    await expect(store.recordAnswer(answer(id))).rejects.toThrow(/^run 1 call 1: ann is in coder's session \(shop continue, process 4242 on h\) since .+; answer there/);
    await expect(store.restartExecution(T, id, '1')).rejects.toThrow(SessionHeldError);
    // A second person, or a second shop continue, is refused too.
    await expect(store.holdSession(id, '1', person('p2', 'bob'), { ask: 1, staleHold: null })).rejects.toThrow(SessionHeldError);
    // Another token cannot release it.
    await store.releaseSession(id, '1', 'p2');
    await expect(store.recordAnswer(answer(id))).rejects.toThrow(SessionHeldError);
    await store.releaseSession(id, '1', 'p1');
    expect((await store.recordAnswer(answer(id))).responder).toBe('bob');
    expect((await store.listEvents(id)).map((e) => e.type)).toEqual(expect.arrayContaining(['session_opened', 'session_closed', 'human_answered']));
  });

  it('a hold judged dead (the token the caller found gone) is cleared in the same transaction as the answer', async () => {
    const { store } = fresh();
    const id = await waiting(store);
    await store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
    // A stale token that is not the hold's (someone else holds it now) clears nothing.
    await expect(store.recordAnswer(answer(id), 'other')).rejects.toThrow(SessionHeldError);
    await store.recordAnswer(answer(id), 'p1');
    expect(await store.getExecution(id, '1')).toMatchObject({ hold: null });
    const closed = (await store.listEvents(id)).find((e) => e.type === 'session_closed');
    expect(closed?.data).toEqual({ why: 'its shop continue process is gone' });
  });

  it('no hold on an ask already answered, or no longer waiting', async () => {
    const { store } = fresh();
    const id = await waiting(store);
    await store.recordAnswer(answer(id));
    await expect(store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null })).rejects.toThrow(/was already answered by bob/);
    await expect(store.holdSession(id, '1', person('p1'), { ask: 2, staleHold: null })).rejects.toThrow(ConflictError);
  });

  it('a person in the session keeps the hold when the agent reports from it (the call completes or asks again)', async () => {
    const { store } = fresh();
    const id = await waiting(store);
    await store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
    await store.markWaiting(T, id, '1', { waitingFor: 'And the port?', awaiting: 'input' }, 'waiting_human');
    expect(await store.getExecution(id, '1')).toMatchObject({ ask: 2, hold: { kind: 'continue', token: 'p1' } });
    await expect(store.recordAnswer({ ...answer(id), ask: 2 })).rejects.toThrow(SessionHeldError);
  });
});

describe('migration from schema 5', () => {
  it('adds the holds; a call past its first attempt, with a pid or ended counts as started, a running first attempt without one does not', async () => {
    const { file, store } = fresh();
    const id = await waiting(store);
    await store.startExecution(T, { runId: id, key: '2', kind: 'run', agent: 'coder', fingerprint: 'f', sessionId: 's-2', cwd: '/p', prompt: 'go', request: {}, signalPath: null });
    await store.startExecution(T, { runId: id, key: '3', kind: 'run', agent: 'coder', fingerprint: 'f', sessionId: 's-3', cwd: '/p', prompt: 'go', request: {}, signalPath: null });
    await store.setExecutionPid(T, id, '3', 99, null);
    store.close();
    open.splice(open.indexOf(store), 1);
    const db = new Database(file);
    for (const c of ['claim_timeout', 'spawned', 'hold_kind', 'hold_token', 'hold_by', 'hold_host', 'hold_pid', 'hold_pid_start', 'hold_since']) db.exec(`ALTER TABLE executions DROP COLUMN ${c}`);
    db.pragma('user_version = 5');
    db.close();
    const migrated = openSqliteStore(file);
    open.push(migrated);
    expect((await migrated.loadExecutions(id)).map((e) => [e.key, e.spawned, e.hold])).toEqual([['1', true, null], ['2', false, null], ['3', true, null]]);
  });
});
