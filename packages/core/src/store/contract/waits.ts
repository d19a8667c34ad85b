import { describe, expect, it } from 'vitest';
import { LostOwnershipError } from '../../errors.js';
import type { Store, WorldWait } from '../store.js';
import { ended, eventTypes, exec, newRun, OTHER, T, useStore, type StoreAdapter } from './fixtures.js';

const MIN = 60_000;
const fired = { type: 'timer_fired', key: '1', actor: 'system:timer', channel: 'engine' as const };
const timer = (until: number): WorldWait & { runStatus: 'waiting' } => ({
  kind: 'timer',
  until,
  runStatus: 'waiting',
  event: { type: 'wait_started', key: '1', actor: 'shop', channel: 'engine', data: { kind: 'timer' } },
});
const sleeping = (runId: number, until: number) =>
  exec(runId, '1', {
    kind: 'sleep',
    agent: null,
    sessionId: null,
    fingerprint: 'sleep()',
    request: { type: 'sleep', seconds: 600, due_at: until },
    waitOn: timer(until),
  });

/** A run whose call 1 sleeps until `until`, recorded in one transaction. */
async function sleepingRun(store: Store, until: number) {
  const run = await store.createRun(newRun());
  await store.startExecution(T, sleeping(run.id, until));
  return run.id;
}

/** Calls that wait on the world (a sleep's timer): recorded waiting with a wake timer row, ended once. */
export function waits(adapter: StoreAdapter) {
  describe('waits on the world', () => {
    const ctx = useStore(adapter);

    it('a call recorded waiting on a timer: the run waits (no person), a wake timer row is due at its time, the event says so', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + 10 * MIN);
      expect(await store.getRun(id)).toMatchObject({ status: 'waiting' });
      expect(await store.getExecution(id, '1')).toMatchObject({
        status: 'waiting',
        waitKind: 'timer',
        waitUntil: clock.t + 10 * MIN,
        kind: 'sleep',
      });
      expect(await store.listWaiting()).toEqual([]);
      expect(await eventTypes(store, id)).toEqual(['run_started', 'execution_started', 'wait_started']);
      expect(await store.dueTimers(clock.t + 10 * MIN - 1)).toEqual([]);
      expect((await store.dueTimers(clock.t + 10 * MIN)).map((t) => [t.runId, t.key, t.kind])).toEqual([
        [id, '1', 'wake'],
      ]);
      expect(await store.nextTimer([id])).toBe(clock.t + 10 * MIN);
      const [listed] = await store.listRuns({ active: true });
      expect(listed).toMatchObject({
        id,
        status: 'waiting',
        waiting: null,
        waitsOn: [expect.objectContaining({ key: '1', waitKind: 'timer' })],
      });
      expect((await store.listOpenRuns()).map((r) => r.id)).toEqual([id]);
    });

    it('a sleeping run is not an idle run to take: it needs no owner (no lease renewed) until its time', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + MIN);
      expect(await store.releaseRun(id, T, { ifIdle: true })).toBe('released');
      expect(await store.claimIdleRuns({ token: OTHER, host: 'h', pid: 2, pidStart: '2' }, MIN, 10)).toEqual([]);
      expect((await store.getRun(id))?.owner).toBeNull();
    });

    it('a worker reads runs asleep only when their time has come: listOpenRuns({awake}) leaves them out; nextTimer skips ended runs', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + MIN);
      const awake = (await store.createRun(newRun())).id;
      expect((await store.listOpenRuns()).map((r) => r.id)).toEqual([id, awake]);
      expect((await store.listOpenRuns({ awake: true })).map((r) => r.id)).toEqual([awake]);
      const gone = await sleepingRun(store, clock.t + MIN / 2);
      expect(await store.nextTimer()).toBe(clock.t + MIN / 2);
      await store.finishRun(T, gone, ended('stuck', 'stopped'));
      expect(await store.nextTimer()).toBe(clock.t + MIN);
    });

    it('waitOn makes a running call wait (a crash between its two writes is picked up so); a completed one is refused', async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(
        T,
        exec(run.id, '1', { kind: 'sleep', agent: null, sessionId: null, fingerprint: 'sleep()' }),
      );
      const w = timer(clock.t + MIN);
      expect(await store.waitOn(T, run.id, '1', w, 'waiting')).toMatchObject({
        status: 'waiting',
        waitUntil: clock.t + MIN,
      });
      expect(await store.endWait(T, run.id, '1', null, fired)).toBe(1);
      await expect(store.waitOn(T, run.id, '1', w, 'waiting')).rejects.toThrow(/has completed/);
    });

    it('endWait: once — the call completes and is handed over, its wake timer fired, the run goes on; a second is null', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + MIN);
      clock.t += MIN;
      expect(await store.endWait(T, id, '1', null, fired)).toBe(1);
      expect(await store.endWait(T, id, '1', null, fired)).toBeNull();
      expect(await store.getExecution(id, '1')).toMatchObject({
        status: 'completed',
        delivered: 1,
        waitKind: null,
        waitUntil: null,
      });
      expect(await store.getRun(id)).toMatchObject({ status: 'running' });
      expect(await store.dueTimers(clock.t + MIN)).toEqual([]);
      expect(await store.nextTimer([id])).toBeNull();
      expect((await eventTypes(store, id)).slice(-2)).toEqual(['timer_fired', 'execution_finished']);
    });

    it('endWait is fenced by the owner token', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + MIN);
      await expect(store.endWait(OTHER, id, '1', null, fired)).rejects.toThrow(LostOwnershipError);
      expect(await store.getExecution(id, '1')).toMatchObject({ status: 'waiting' });
    });

    it('racing drivers: of many concurrent ends of one wait, on their own connections, exactly one fires it', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + MIN);
      clock.t += MIN;
      const conns = await Promise.all(Array.from({ length: 8 }, () => adapter.connect(store, () => ctx.clock.t)));
      const results = await Promise.all(conns.map((c) => c.endWait(T, id, '1', null, fired)));
      await Promise.all(conns.map((c) => c.close()));
      expect(results.filter((r) => r !== null)).toEqual([1]);
      expect((await eventTypes(store, id)).filter((t) => t === 'timer_fired')).toHaveLength(1);
      expect(await store.getRun(id)).toMatchObject({ status: 'running' });
    });

    it('a run ended while it sleeps fails the call; its wait can no longer end', async () => {
      const { store, clock } = ctx;
      const id = await sleepingRun(store, clock.t + MIN);
      expect(await store.finishRun(T, id, ended('stuck', 'stopped'))).toBe(true);
      expect(await store.getExecution(id, '1')).toMatchObject({ status: 'failed' });
      expect(await store.endWait(T, id, '1', null, fired)).toBeNull();
    });
  });
}
