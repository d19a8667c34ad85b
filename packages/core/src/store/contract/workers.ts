import { describe, expect, it } from 'vitest';
import { FORGET_GONE_WORKERS_MS, type NewWorker } from '../worker-store.js';
import { ended, exec, newRun, owner, pause, T, useStore, type StoreAdapter } from './fixtures.js';

const worker = (id: string, over: Partial<NewWorker> = {}): NewWorker => ({
  id,
  host: 'build-1',
  pid: 4242,
  pidStart: 'Mon 10:00',
  project: 'proj-a',
  maxParallel: 4,
  ...over,
});

export function workerRegistry(adapter: StoreAdapter) {
  describe('the worker registry', () => {
    const ctx = useStore(adapter);

    it('a registered worker is listed, started and heartbeating now by the store clock, holding nothing', async () => {
      const { store, clock } = ctx;
      await store.registerWorker(worker('w1', { maxParallel: null }));
      expect(await store.listWorkers()).toEqual([
        {
          ...worker('w1', { maxParallel: null }),
          runsHeld: 0,
          agents: 0,
          left: [],
          startedAt: clock.t,
          heartbeatAt: clock.t,
        },
      ]);
    });

    it('a heartbeat records the load and the time; false once the row is gone', async () => {
      const { store, clock } = ctx;
      const started = clock.t;
      await store.registerWorker(worker('w1'));
      clock.t += 5_000;
      expect(await store.heartbeatWorker('w1', { runsHeld: 3, agents: 2 })).toBe(true);
      expect(await store.listWorkers()).toMatchObject([
        { id: 'w1', runsHeld: 3, agents: 2, startedAt: started, heartbeatAt: clock.t },
      ]);
      await store.endWorker('w1');
      expect(await store.listWorkers()).toEqual([]);
      expect(await store.heartbeatWorker('w1', { runsHeld: 0, agents: 0 })).toBe(false);
      expect(await store.heartbeatWorker('never', { runsHeld: 0, agents: 0 })).toBe(false);
      await store.endWorker('never');
    });

    it('a heartbeat records the runs the worker leaves to others, and a later one without them clears them', async () => {
      const { store } = ctx;
      await store.registerWorker(worker('w1'));
      const left = [{ runId: 7, spec: 'deploy', reason: 'this checkout has no workflows/deploy.lua' }];
      await store.heartbeatWorker('w1', { runsHeld: 0, agents: 0, left });
      expect((await store.listWorkers())[0]!.left).toEqual(left);
      await store.heartbeatWorker('w1', { runsHeld: 1, agents: 0 });
      expect((await store.listWorkers())[0]!.left).toEqual([]);
    });

    it('every connection sees every worker, oldest first (workers on several machines share one registry)', async () => {
      const { store, clock } = ctx;
      const other = await adapter.connect(store, () => clock.t);
      try {
        await store.registerWorker(worker('w-b', { host: 'build-1' }));
        clock.t += 1_000;
        await other.registerWorker(worker('w-a', { host: 'build-2', pid: 77 }));
        expect((await store.listWorkers()).map((w) => [w.id, w.host, w.pid])).toEqual([
          ['w-b', 'build-1', 4242],
          ['w-a', 'build-2', 77],
        ]);
        expect(await other.heartbeatWorker('w-b', { runsHeld: 1, agents: 0 })).toBe(true);
        expect((await store.listWorkers())[0].runsHeld).toBe(1);
      } finally {
        await other.close();
      }
    });

    it('rows silent for a day go at the next registration; a silent but recent one stays (shown as gone)', async () => {
      const { store, clock } = ctx;
      await store.registerWorker(worker('crashed-long-ago'));
      clock.t += FORGET_GONE_WORKERS_MS - 60_000;
      await store.registerWorker(worker('crashed-lately'));
      clock.t += 120_000;
      await store.registerWorker(worker('new'));
      expect((await store.listWorkers()).map((w) => w.id)).toEqual(['crashed-lately', 'new']);
    });

    it('claimIdleRuns takes open runs with no owner or a lapsed lease, oldest first, up to the limit — never a live lease or an ended run', async () => {
      const { store, clock } = ctx;
      const released = await store.createRun(newRun());
      await store.releaseRun(released.id, T, { ifIdle: false });
      const live = await store.createRun(newRun({ leaseMs: 60_000 }));
      const lapsing = await store.createRun(newRun({ leaseMs: 10_000 }));
      const waiting = await store.createRun(newRun({ leaseMs: 10_000 }));
      await store.startExecution(T, pause(waiting.id, '1'));
      const done = await store.createRun(newRun({ leaseMs: 10_000 }));
      await store.finishRun(T, done.id, ended());
      clock.t += 10_000;
      const me = { ...owner('w-token'), host: 'build-2', pid: 31 };
      const took = await store.claimIdleRuns(me, 15_000, 2);
      expect(took.map((r) => r.id)).toEqual([released.id, lapsing.id]);
      for (const r of took) expect(r.owner).toEqual({ ...me, leaseUntil: clock.t + 15_000 });
      expect((await store.claimIdleRuns(me, 15_000, 10)).map((r) => [r.id, r.status])).toEqual([
        [waiting.id, 'waiting_human'],
      ]);
      expect(await store.claimIdleRuns({ ...me, token: 'other' }, 15_000, 10)).toEqual([]);
      expect((await store.getRun(live.id))!.owner!.token).toBe(T);
      expect((await store.getRun(lapsing.id))!.owner!.token).toBe('w-token');
    });

    it('claimIdleRuns leaves the runs a worker skips (its checkout lacks them) to the others', async () => {
      const { store } = ctx;
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun());
      await store.releaseRun(a.id, T, { ifIdle: false });
      await store.releaseRun(b.id, T, { ifIdle: false });
      expect((await store.claimIdleRuns(owner('lacks-a'), 15_000, 10, [a.id])).map((r) => r.id)).toEqual([b.id]);
      expect((await store.getRun(a.id))!.owner).toBeNull();
      expect((await store.claimIdleRuns(owner('has-a'), 15_000, 10, [])).map((r) => r.id)).toEqual([a.id]);
    });

    it('racing workers take disjoint runs, every idle one taken once', async () => {
      const { store, clock } = ctx;
      const ids: number[] = [];
      for (let i = 0; i < 12; i++) {
        const run = await store.createRun(newRun());
        await store.releaseRun(run.id, T, { ifIdle: false });
        ids.push(run.id);
      }
      const conns = [store, await adapter.connect(store, () => clock.t), await adapter.connect(store, () => clock.t)];
      try {
        const took = await Promise.all(
          conns.flatMap((c, i) => [0, 1].map((j) => c.claimIdleRuns(owner(`w${i}-${j}`), 15_000, 3))),
        );
        const all = took.flat().map((r) => r.id);
        expect(all.sort((a, b) => a - b)).toEqual(ids);
        for (const [n, runs] of took.entries())
          for (const r of runs) expect((await store.getRun(r.id))!.owner!.token).toBe(`w${Math.floor(n / 2)}-${n % 2}`);
      } finally {
        for (const c of conns.slice(1)) await c.close();
      }
    });

    it('the trail names the worker (host, pid) that started each call, and the one that restarted it after a takeover', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun({ owner: { ...owner(), host: 'build-1', pid: 11 } }));
      await store.startExecution(T, exec(run.id, '1'));
      await store.releaseRun(run.id, T, { ifIdle: false });
      await store.claimIdleRuns({ ...owner('w2'), host: 'build-2', pid: 22 }, 15_000, 1);
      await store.restartExecution('w2', run.id, '1');
      const calls = (await store.listEvents(run.id)).filter((e) => e.key === '1').map((e) => [e.type, e.data]);
      expect(calls).toEqual([
        ['execution_started', { host: 'build-1', pid: 11 }],
        ['execution_restarted', { host: 'build-2', pid: 22 }],
      ]);
    });
  });
}
