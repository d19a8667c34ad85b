import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAlive } from '../agents/process-group.js';
import { ConflictError } from '../errors.js';
import { openSqliteStore, SCHEMA_VERSION } from './sqlite-store.js';
import type { NewExecution, Store } from './store.js';

const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
});

function fresh() {
  const file = join(mkdtempSync(join(tmpdir(), 'shop-store-')), 'shop.db');
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

const newRun = { spec: 'feature', workflowPath: '/p/workflows/feature.lua', prompt: 'add login', workspace: '/p', branch: null, seed: 9, ownerPid: 1, leaseUntil: 0, actor: 'ann' };
const exec = (runId: number, key: string, over: Partial<NewExecution> = {}): NewExecution => ({
  runId, key, kind: 'run', agent: 'coder', fingerprint: 'run("coder")', sessionId: `s-${key}`, cwd: '/p', prompt: 'go', request: {}, signalPath: null, ...over,
});
const eventTypes = async (store: Store, id: number) => (await store.listEvents(id)).map((e) => e.type);

describe('SqliteStore on a real file', () => {
  it('turns WAL on and sets the schema version', () => {
    const { file } = fresh();
    const db = raw(file);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('user_version', { simple: true })).toBe(SCHEMA_VERSION);
    expect(SCHEMA_VERSION).toBeGreaterThan(0);
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

  it('createRun records the run and a run_started event', async () => {
    const { store } = fresh();
    const run = await store.createRun(newRun);
    expect(run).toMatchObject({ id: 1, spec: 'feature', status: 'running', prompt: 'add login', seed: 9, endedAt: null });
    const [ev] = await store.listEvents(run.id);
    expect(ev).toMatchObject({ type: 'run_started', actor: 'ann', channel: 'cli', data: { spec: 'feature', prompt: 'add login' } });
    expect((await store.createRun(newRun)).id).toBe(2);
  });

  it('first answer wins; a second is a ConflictError naming the first responder', async () => {
    const { store } = fresh();
    const run = await store.createRun(newRun);
    await store.startExecution(exec(run.id, '1', { kind: 'pause', agent: '_checkpoint' }));
    await store.markWaiting(run.id, '1', 'Deploy?', 'checkpoint');
    await store.recordAnswer({ ask: 1, verdict: null, decisions: null, runId: run.id, key: '1', status: 'CONTINUE', message: null, responder: 'ann', channel: 'cli' });
    const second = store.recordAnswer({ ask: 1, verdict: null, decisions: null, runId: run.id, key: '1', status: 'STOP', message: 'no', responder: 'bob', channel: 'tui' });
    await expect(second).rejects.toThrow(ConflictError);
    await expect(second).rejects.toThrow(/already answered CONTINUE by ann \(cli\) at /);
    expect(await store.getAnswer(run.id, '1', 1)).toMatchObject({ status: 'CONTINUE', responder: 'ann', channel: 'cli' });
    expect((await eventTypes(store, run.id)).filter((t) => t === 'human_answered')).toHaveLength(1);
  });

  it('events and answers cannot be changed or deleted', async () => {
    const { file, store } = fresh();
    const run = await store.createRun(newRun);
    await store.startExecution(exec(run.id, '1'));
    await store.markWaiting(run.id, '1', 'Which database?', 'input');
    await store.recordAnswer({ ask: 1, verdict: null, decisions: null, runId: run.id, key: '1', status: 'DONE', message: null, responder: 'ann', channel: 'cli' });
    const db = raw(file);
    expect(() => db.prepare("UPDATE events SET actor = 'mallory'").run()).toThrow(/append-only/);
    expect(() => db.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    expect(() => db.prepare("UPDATE answers SET status = 'STOP'").run()).toThrow(/immutable/);
    expect(await eventTypes(store, run.id)).toEqual(['run_started', 'execution_started', 'waiting', 'human_answered']);
  });

  it('finishRun does not overwrite a run that has ended', async () => {
    const { store } = fresh();
    const run = await store.createRun(newRun);
    expect(await store.finishRun(run.id, 'completed', { result: { ok: 1 } }, { type: 'completed', actor: 'shop', channel: 'engine' })).toBe(true);
    expect(await store.finishRun(run.id, 'stuck', { reason: 'late stop' }, { type: 'stopped', actor: 'bob', channel: 'cli' })).toBe(false);
    await store.failExecution(run.id, '9', 'late failure');
    expect(await store.getRun(run.id)).toMatchObject({ status: 'completed', reason: null, result: { ok: 1 } });
    expect(await eventTypes(store, run.id)).toEqual(['run_started', 'completed']);
  });

  it('completeExecution moves execution and run together, or not at all', async () => {
    const { file, store } = fresh();
    const run = await store.createRun(newRun);
    await store.startExecution(exec(run.id, '1'));
    await store.markWaiting(run.id, '1', 'which db?', 'input', { costUsd: 0.5, numTurns: 2, durationMs: 10 });
    expect((await store.getRun(run.id))!.status).toBe('waiting_human');

    // Make the event insert fail: the whole operation must roll back.
    raw(file).exec(`CREATE TRIGGER no_finish BEFORE INSERT ON events WHEN NEW.type = 'execution_finished'
      BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    await expect(store.completeExecution(run.id, '1', { status: 'DONE' })).rejects.toThrow(/injected failure/);
    expect((await store.getRun(run.id))!.status).toBe('waiting_human');
    expect((await store.loadExecutions(run.id))[0]).toMatchObject({ status: 'waiting_human', result: null });

    raw(file).exec('DROP TRIGGER no_finish');
    await store.completeExecution(run.id, '1', { status: 'DONE', summary: 'pg' }, { costUsd: null, numTurns: null, durationMs: null });
    expect((await store.getRun(run.id))!.status).toBe('running');
    expect((await store.loadExecutions(run.id))[0]).toMatchObject({
      status: 'completed', result: { status: 'DONE', summary: 'pg' }, waitingFor: null, costUsd: 0.5, numTurns: 2,
    });
    expect((await store.listEvents(run.id)).at(-1)).toMatchObject({ type: 'execution_finished', key: '1', data: { status: 'DONE', summary: 'pg' } });
  });

  it('loadExecutions returns calls in the order they were first made, not by key', async () => {
    const { store } = fresh();
    const run = await store.createRun(newRun);
    for (const key of ['2', '10', '1', '4/2/1']) await store.startExecution(exec(run.id, key));
    await store.restartExecution(run.id, '2');
    const all = await store.loadExecutions(run.id);
    expect(all.map((e) => [e.key, e.seq])).toEqual([['2', 1], ['10', 2], ['1', 3], ['4/2/1', 4]]);
    expect(all[0].attempts).toBe(2);
    expect(all[0].sessionId).toBe('s-2');
  });

  it('a lease held by another live process is a conflict; a dead or expired one is taken over', async () => {
    const { store } = fresh();
    const run = await store.createRun(newRun);
    const other = process.ppid; // alive: it started us
    const far = Date.now() * 2;
    await store.acquireLease(run.id, other, far, isAlive);
    const take = store.acquireLease(run.id, process.pid, far, isAlive);
    await expect(take).rejects.toThrow(ConflictError);
    await expect(take).rejects.toThrow(`being driven by process ${other}`);
    await store.acquireLease(run.id, process.pid, far, () => false);
    expect((await store.getRun(run.id))!.ownerPid).toBe(process.pid);

    await store.releaseLease(run.id, other);
    expect((await store.getRun(run.id))!.ownerPid).toBe(process.pid);
    await store.releaseLease(run.id, process.pid);
    expect(await store.getRun(run.id)).toMatchObject({ ownerPid: null, leaseUntil: null });
    await store.acquireLease(run.id, other, 0, isAlive);
    await store.acquireLease(run.id, process.pid, far, isAlive);
    expect((await store.getRun(run.id))!.ownerPid).toBe(process.pid);
  });
});
