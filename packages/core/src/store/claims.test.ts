import Database from 'better-sqlite3';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError, LostOwnershipError } from '../errors.js';
import { openSqliteStore } from './sqlite-store.js';
import type { Store } from './store.js';

const open: Store[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const T = 'driver-token';
const HOUR = 3_600_000;

/** A store on a clock the test moves, with run 1 whose call 1 waits on its first ask (a reminder due in 10 minutes). */
async function waitingAsk() {
  const clock = { t: 1_000_000 };
  const file = join(mkdtempSync(join(tmpdir(), 'shop-claims-')), 'shop.db');
  const store = openSqliteStore(file, () => clock.t);
  open.push(store);
  const run = await store.createRun({
    spec: 'bugfix', workflowPath: '/p/b.lua', workflowHash: null, prompt: 'x', workspace: '/p', branch: null, seed: 1,
    owner: { token: T, host: 'h', pid: 1, pidStart: '1', leaseUntil: Number.MAX_SAFE_INTEGER }, actor: 'ann',
  });
  await store.startExecution(T, { runId: run.id, key: '1', kind: 'run', agent: 'coder', fingerprint: 'f', sessionId: 's-1', cwd: '/p', prompt: 'go', request: {}, signalPath: null });
  await store.markWaiting(T, run.id, '1', {
    waitingFor: 'Which database?', awaiting: 'input', claimTimeout: 1800,
    timers: [{ kind: 'remind', dueAt: clock.t + 600_000, data: { targets: ['desktop'], after_seconds: 600 } }],
  }, 'waiting_human');
  return { store, clock, file, id: run.id };
}

const ask = (runId: number, by = 'ann') => ({ runId, key: '1', ask: 1, by, channel: 'cli' as const });
const types = async (store: Store, id: number) => (await store.listEvents(id)).map((e) => e.type);

describe('claims on open asks', () => {
  it('a claim comes back with the ask from every read of waiting calls, and is in the trail', async () => {
    const { store, clock, id } = await waitingAsk();
    expect(await store.getExecution(id, '1')).toMatchObject({ claimTimeout: 1800, claim: null });
    const claim = await store.claimAsk({ ...ask(id), channel: 'web' }, { ttlMs: HOUR });
    expect(claim).toEqual({ runId: id, key: '1', ask: 1, by: 'ann', channel: 'web', since: clock.t, until: clock.t + HOUR, refreshed: false });
    const expected = { by: 'ann', channel: 'web', since: clock.t, until: clock.t + HOUR };
    expect((await store.getExecution(id, '1'))!.claim).toEqual(expected);
    expect((await store.openExecutions(id))[0].claim).toEqual(expected);
    expect((await store.listWaiting())[0].execution.claim).toEqual(expected);
    const [event] = (await store.listEvents(id)).filter((e) => e.type === 'claimed');
    expect(event).toMatchObject({ key: '1', actor: 'ann', channel: 'web', data: { ask: 1, until: new Date(clock.t + HOUR).toISOString() } });
  });

  it("someone else's claim is a conflict naming them and since when; claiming again refreshes one's own", async () => {
    const { store, clock, id } = await waitingAsk();
    const since = clock.t;
    await store.claimAsk(ask(id), { ttlMs: HOUR });
    clock.t += 60_000;
    await expect(store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).rejects.toThrow(ConflictError);
    await expect(store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).rejects.toThrow(/^1\.1 is claimed by ann \(cli\) since \d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d\d:\d\d/);
    const again = await store.claimAsk(ask(id), { ttlMs: HOUR });
    expect(again).toMatchObject({ by: 'ann', since, until: clock.t + HOUR, refreshed: true });
  });

  it('an aged-out claim reads as none, and anyone may claim the ask then', async () => {
    const { store, clock, id } = await waitingAsk();
    await store.claimAsk(ask(id), { ttlMs: HOUR });
    clock.t += HOUR;
    expect((await store.getExecution(id, '1'))!.claim).toBeNull();
    expect((await store.listWaiting())[0].execution.claim).toBeNull();
    expect(await store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).toMatchObject({ by: 'bob', since: clock.t, refreshed: false });
    expect((await store.getExecution(id, '1'))!.claim).toMatchObject({ by: 'bob' });
  });

  it("releases one's own claim; someone else's only when taken over (by null); nothing to release is null", async () => {
    const { store, id } = await waitingAsk();
    await store.claimAsk(ask(id), { ttlMs: HOUR });
    await expect(store.releaseClaim({ ...ask(id, 'bob'), actor: 'bob' })).rejects.toThrow(/^1\.1 is claimed by ann/);
    expect(await store.releaseClaim({ ...ask(id, 'ann'), actor: 'ann' })).toMatchObject({ by: 'ann' });
    expect((await store.getExecution(id, '1'))!.claim).toBeNull();
    expect(await store.releaseClaim({ ...ask(id, 'ann'), actor: 'ann' })).toBeNull();
    await store.claimAsk(ask(id), { ttlMs: HOUR });
    expect(await store.releaseClaim({ ...ask(id), by: null, actor: 'bob' })).toMatchObject({ by: 'ann' });
    const released = (await store.listEvents(id)).filter((e) => e.type === 'claim_released');
    expect(released.map((e) => [e.actor, e.data!.claimed_by])).toEqual([['ann', 'ann'], ['bob', 'ann']]);
  });

  it('only an open ask is claimed: an answered one names who answered, a closed one says so', async () => {
    const { store, id } = await waitingAsk();
    await expect(store.claimAsk({ ...ask(id), ask: 2 }, { ttlMs: HOUR })).rejects.toThrow(/^1\.1\.2 is not open any more/);
    await store.recordAnswer({ runId: id, key: '1', ask: 1, verdict: 'answer', status: null, message: 'pg', decisions: null, responder: 'bob', channel: 'cli' });
    await expect(store.claimAsk(ask(id), { ttlMs: HOUR })).rejects.toThrow(/^1\.1 \(run 1 call 1\) was already answered by bob \(cli\)/);
    expect(await types(store, id)).not.toContain('claimed');
  });

  it('an answered ask no longer shows its claim', async () => {
    const { store, id } = await waitingAsk();
    await store.claimAsk(ask(id), { ttlMs: HOUR });
    await store.recordAnswer({ runId: id, key: '1', ask: 1, verdict: 'answer', status: null, message: 'pg', decisions: null, responder: 'ann', channel: 'cli' });
    expect(await store.listWaiting()).toEqual([]);
    // Answered, not yet taken in by the driver: the call still waits, the claim is over.
    expect(await store.getExecution(id, '1')).toMatchObject({ status: 'waiting_human', claim: null });
    expect((await store.openExecutions(id))[0].claim).toBeNull();
    await store.completeExecution(T, id, '1', { status: 'DONE' });
    expect((await store.getExecution(id, '1'))!.claim).toBeNull();
  });
});

describe('timers of a claimed ask', () => {
  it('a due reminder is put off until the claim ages out, fenced by the owner token; a release brings it back', async () => {
    const { store, clock, id } = await waitingAsk();
    const [timer] = await store.dueTimers(clock.t + 600_000);
    expect(await store.putOffTimer(T, timer)).toBeNull();
    const claim = await store.claimAsk(ask(id), { ttlMs: HOUR });
    await expect(store.putOffTimer('other-token', timer)).rejects.toThrow(LostOwnershipError);
    clock.t += 600_000;
    expect(await store.putOffTimer(T, timer)).toMatchObject({ by: 'ann', until: claim.until });
    expect(await store.dueTimers(clock.t)).toEqual([]);
    expect(await store.nextTimer([id])).toBe(claim.until);
    const [put] = (await store.listEvents(id)).filter((e) => e.type === 'timer_put_off');
    expect(put).toMatchObject({ actor: 'system:timer', data: { timer: 'remind', claimed_by: 'ann' } });
    clock.t += 60_000;
    await store.releaseClaim({ ...ask(id), actor: 'ann' });
    expect((await store.dueTimers(clock.t)).map((t) => [t.id, t.dueAt])).toEqual([[timer.id, clock.t]]);
  });
});

describe('migration from schema 6', () => {
  it('adds claim_timeout to the calls and the claims table; a waiting ask can be claimed after it', async () => {
    const { store, file, id } = await waitingAsk();
    store.close();
    open.splice(open.indexOf(store), 1);
    const db = new Database(file);
    db.exec('ALTER TABLE executions DROP COLUMN claim_timeout; DROP TABLE claims');
    db.pragma('user_version = 6');
    db.close();
    const migrated = openSqliteStore(file);
    open.push(migrated);
    expect(await migrated.getExecution(id, '1')).toMatchObject({ claimTimeout: null, claim: null });
    expect(await migrated.claimAsk(ask(id), { ttlMs: HOUR })).toMatchObject({ by: 'ann' });
    expect((await migrated.getExecution(id, '1'))!.claim).toMatchObject({ by: 'ann' });
  });
});
