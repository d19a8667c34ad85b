import { describe, expect, it } from 'vitest';
import { LostOwnershipError, NotFoundError } from '../../errors.js';
import type { Store } from '../store.js';
import { ended, exec, OTHER, owner, newRun, T, useStore, type StoreAdapter } from './fixtures.js';

/** Every write a driver makes with its token, each against run `id` whose call 1 runs. */
const fencedWrites = (store: Store, id: number, token: string) => ({
  setWorkspace: () => store.setWorkspace(token, id, '/w', 'b'),
  startExecution: () => store.startExecution(token, exec(id, '2')),
  restartExecution: () => store.restartExecution(token, id, '1'),
  setExecutionPid: () => store.setExecutionPid(token, id, '1', 5, '5'),
  setExecutionPidStarted: () =>
    store.setExecutionPid(token, id, '1', 5, '5', {
      type: 'agent_started',
      key: '1',
      actor: 'shop',
      channel: 'engine',
    }),
  setSessionId: () => store.setSessionId(token, id, '1', 'thread-late'),
  setActivity: () => store.setActivity(token, id, '1', { text: 'late' }),
  completeExecution: () => store.completeExecution(token, id, '1', 'late'),
  markWaiting: () => store.markWaiting(token, id, '1', { waitingFor: 'q', awaiting: null }, 'waiting_human'),
  closeExecution: () => store.closeExecution(token, id, '1', null),
  cancelExecutions: () => store.cancelExecutions(token, id, ['1'], 'late'),
  finishRun: () => store.finishRun(token, id, ended('failed', 'late')),
  setRunStatus: () => store.setRunStatus(token, id, 'waiting_human', { type: 'x', actor: 'shop', channel: 'engine' }),
  setRunRules: () =>
    store.setRunRules(token, id, {
      rules: { agents: {}, config: {}, files: {}, differs: [] },
      clearHeld: true,
      events: [{ type: 'x', actor: 'shop', channel: 'engine' }],
    }),
  appendEvent: () => store.appendEvent(token, id, { type: 'log', actor: 'workflow', channel: 'engine' }),
  fireTimer: () =>
    store.fireTimer(
      token,
      { id: 1, runId: id, key: '1', ask: 1, kind: 'timeout', dueAt: 0, firedAt: null, data: {} },
      { event: { type: 'timed_out', actor: 'system:timeout', channel: 'engine' } },
    ),
  putOffTimer: () =>
    store.putOffTimer(token, { id: 1, runId: id, key: '1', ask: 1, kind: 'remind', dueAt: 0, firedAt: null, data: {} }),
});

export function runsAndOwnership(adapter: StoreAdapter) {
  describe('runs and ownership', () => {
    const ctx = useStore(adapter);

    it('createRun records the run, its owner and a run_started event; ids go up', async () => {
      const run = await ctx.store.createRun(newRun());
      expect(run).toMatchObject({
        spec: 'feature',
        status: 'running',
        prompt: 'add login',
        seed: 9,
        endedAt: null,
        workflowHash: 'abc',
        stop: null,
      });
      expect(run.owner).toMatchObject({ token: T, host: 'h', pid: 1, pidStart: '1' });
      expect(await ctx.store.getRun(run.id)).toMatchObject({ id: run.id, status: 'running' });
      expect((await ctx.store.listEvents(run.id))[0]).toMatchObject({
        type: 'run_started',
        actor: 'ann',
        channel: 'cli',
        data: { spec: 'feature', prompt: 'add login' },
      });
      expect((await ctx.store.createRun(newRun())).id).toBeGreaterThan(run.id);
      expect(await ctx.store.getRun(run.id + 1000)).toBeNull();
    });

    it('a run that does not exist: NotFoundError from every write naming it, null or "missing" from reads', async () => {
      const { store } = ctx;
      const id = (await store.createRun(newRun())).id + 100;
      await expect(store.requestStop(id, 'x', 'bob')).rejects.toThrow(NotFoundError);
      await expect(
        store.recordAnswer({
          runId: id,
          key: '1',
          ask: 1,
          verdict: null,
          decisions: null,
          status: 'GO',
          message: null,
          responder: 'ann',
          channel: 'cli',
        }),
      ).rejects.toThrow(NotFoundError);
      await expect(store.claimRun(id, owner(OTHER), LEASE, null)).rejects.toThrow(NotFoundError);
      await expect(store.appendEvent(null, id, { type: 'note', actor: 'ann', channel: 'cli' })).rejects.toThrow(
        NotFoundError,
      );
      await expect(store.appendEvent(T, id, { type: 'log', actor: 'workflow', channel: 'engine' })).rejects.toThrow(
        NotFoundError,
      );
      expect(await store.getRun(id)).toBeNull();
      expect(await store.deleteRun(id)).toBe('missing');
      expect(await store.listEvents(id)).toEqual([]);
    });

    it('claims only from the owner the caller expected (compare and swap); release gives it up once', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      expect(await store.claimRun(run.id, owner(OTHER), LEASE, null)).toBeNull();
      expect(await store.claimRun(run.id, owner(OTHER), LEASE, 'someone-else')).toBeNull();
      expect(await store.releaseRun(run.id, OTHER, { ifIdle: false })).toBe('lost');
      expect(await store.releaseRun(run.id, T, { ifIdle: false })).toBe('released');
      expect((await store.getRun(run.id))!.owner).toBeNull();
      expect(await store.releaseRun(run.id, T, { ifIdle: false })).toBe('lost');
      expect((await store.claimRun(run.id, owner(OTHER), LEASE, null))!.owner).toMatchObject({ token: OTHER });
      expect(await store.claimRun(run.id, owner('token-c'), LEASE, null)).toBeNull();
      expect((await store.claimRun(run.id, owner('token-c'), LEASE, OTHER))!.owner).toMatchObject({ token: 'token-c' });
    });

    it('only racing claimers expecting the same dead owner: exactly one gets the run', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      const tokens = Array.from({ length: 8 }, (_, i) => `racer-${i}`);
      const conns = await Promise.all(tokens.map(() => adapter.connect(store, () => ctx.clock.t)));
      const got = await Promise.all(tokens.map((t, i) => conns[i].claimRun(run.id, owner(t), LEASE, T)));
      await Promise.all(conns.map((c) => c.close()));
      const winners = got.filter((r) => r !== null);
      expect(winners).toHaveLength(1);
      expect((await store.getRun(run.id))!.owner!.token).toBe(winners[0]!.owner!.token);
    });

    it("renewLease extends only for the owner, to the store's now + leaseMs", async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun({ leaseMs: 5 }));
      expect(run.owner!.leaseUntil).toBe(clock.t + 5);
      clock.t += 3;
      expect(await store.renewLease(run.id, T, 99)).toBe(true);
      expect((await store.getRun(run.id))!.owner!.leaseUntil).toBe(clock.t + 99);
      expect(await store.renewLease(run.id, OTHER, 500)).toBe(false);
      expect((await store.getRun(run.id))!.owner!.leaseUntil).toBe(clock.t + 99);
    });

    it("claimRun judges the lease by the store's clock: not before it runs out, from then on without naming the owner", async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun({ leaseMs: 5_000 }));
      clock.t += 4_999;
      expect(await store.claimRun(run.id, owner(OTHER), LEASE, null)).toBeNull();
      expect((await store.getRun(run.id))!.owner).toMatchObject({ token: T, leaseUntil: clock.t + 1 });
      clock.t += 1;
      const taken = await store.claimRun(run.id, owner(OTHER), LEASE, null);
      expect(taken!.owner).toEqual({ token: OTHER, host: 'h', pid: 1, pidStart: '1', leaseUntil: clock.t + LEASE });
      // The new lease holds against the next claimer, who saw no death.
      expect(await store.claimRun(run.id, owner('token-c'), LEASE, null)).toBeNull();
      expect(await store.renewLease(run.id, T, LEASE)).toBe(false);
    });

    it('claimRun takes a live lease only from the owner the caller saw die (expectedToken)', async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun());
      expect(await store.claimRun(run.id, owner(OTHER), LEASE, 'not-the-owner')).toBeNull();
      const taken = await store.claimRun(run.id, owner(OTHER), LEASE, T);
      expect(taken!.owner).toMatchObject({ token: OTHER, leaseUntil: clock.t + LEASE });
    });

    it('lapsedSince names a run whose lease ran out in the window (nothing was written then); not an ended one', async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun({ leaseMs: 5_000 }));
      const done = await store.createRun(newRun({ leaseMs: 5_000 }));
      await store.finishRun(T, done.id, ended());
      expect(await store.lapsedSince(clock.t, clock.t + 4_999)).toEqual([]);
      expect(await store.lapsedSince(clock.t + 4_999, clock.t + 10_000)).toEqual([
        { runId: run.id, at: clock.t + 5_000 },
      ]);
      expect(await store.lapsedSince(clock.t + 5_000, clock.t + 10_000)).toEqual([]);
    });

    it('fences every driver write by its token: a stale token is LostOwnershipError and writes nothing', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      expect(await store.claimRun(run.id, owner(OTHER), LEASE, T)).not.toBeNull();
      const before = {
        execs: await store.loadExecutions(run.id),
        events: await store.listEvents(run.id),
        run: await store.getRun(run.id),
      };
      for (const [name, write] of Object.entries(fencedWrites(store, run.id, T))) {
        await expect(write(), name).rejects.toThrow(LostOwnershipError);
      }
      expect(await store.renewLease(run.id, T, FAR_LEASE)).toBe(false);
      expect(await store.loadExecutions(run.id)).toEqual(before.execs);
      expect(await store.listEvents(run.id)).toEqual(before.events);
      expect(await store.getRun(run.id)).toEqual(before.run);
    });

    it('a released run fences its old owner too', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.releaseRun(run.id, T, { ifIdle: false });
      await expect(store.completeExecution(T, run.id, '1', 'late')).rejects.toThrow(LostOwnershipError);
      await expect(store.appendEvent(T, run.id, { type: 'log', actor: 'workflow', channel: 'engine' })).rejects.toThrow(
        LostOwnershipError,
      );
    });
  });
}

const FAR_LEASE = 9_000_000_000_000;
/** A claimer's lease (ms). */
const LEASE = 15_000;
