import { describe, expect, it } from 'vitest';
import type { NewQueuedRun } from '../queue-store.js';
import { LONG, owner, T, useStore, type StoreAdapter } from './fixtures.js';

export const queued = (over: Partial<NewQueuedRun> = {}): NewQueuedRun => ({
  spec: 'deploy',
  workflowPath: '/p/workflows/deploy.lua',
  workflowHash: 'abc',
  prompt: 'ship it',
  workspace: '/p',
  branch: null,
  seed: 9,
  actor: 'ann',
  priority: 0,
  queueKey: null,
  concurrency: null,
  trigger: { kind: 'cli', name: null, by: 'ann', data: null },
  startId: null,
  ...over,
});

export function queue(adapter: StoreAdapter) {
  describe('the queue', () => {
    const ctx = useStore(adapter);

    it('a queued run has no owner, its trigger, and a first event saying so; it is not an open run to hold', async () => {
      const { store } = ctx;
      const { run, created } = await store.queueRun(
        queued({ priority: 5, queueKey: 'prod', trigger: { kind: 'api', name: null, by: 'ci', data: { pr: 7 } } }),
      );
      expect(created).toBe(true);
      expect(run).toMatchObject({ status: 'queued', owner: null, priority: 5, queueKey: 'prod', concurrency: null });
      expect(run.trigger).toEqual({ kind: 'api', name: null, by: 'ci', data: { pr: 7 } });
      const [first] = await store.listEvents(run.id);
      expect(first).toMatchObject({ type: 'run_started', actor: 'ann', channel: 'api' });
      expect(first!.data).toMatchObject({ queued: true, priority: 5, key: 'prod' });
      expect(await store.listOpenRuns()).toEqual([]);
      expect(await store.claimIdleRuns(owner('w'), LONG, 10)).toEqual([]);
      expect((await store.listRuns({ active: true })).map((r) => r.id)).toEqual([run.id]);
    });

    it('a claim leaves the runs its filter refuses queued and untouched, and takes the next ones', async () => {
      const { store } = ctx;
      const high = (await store.queueRun(queued({ priority: 9, spec: 'elsewhere' }))).run;
      const low = (await store.queueRun(queued())).run;
      const took = await store.claimQueuedRuns(owner('w1'), LONG, 1, undefined, (r) => r.spec !== 'elsewhere');
      expect(took.map((r) => r.id)).toEqual([low.id]);
      expect(await store.getRun(high.id)).toMatchObject({ status: 'queued', owner: null });
      expect((await store.listEvents(high.id)).map((e) => e.type)).toEqual(['run_started']);
      expect((await store.claimQueuedRuns(owner('w2'), LONG, 5)).map((r) => r.id)).toEqual([high.id]);
    });

    it('the same start id twice is one run', async () => {
      const { store } = ctx;
      const a = await store.queueRun(queued({ startId: 'pr-7-deploy' }));
      const b = await store.queueRun(queued({ startId: 'pr-7-deploy', prompt: 'other' }));
      expect(b).toEqual({ run: a.run, created: false });
      expect(await store.countRuns()).toBe(1);
    });

    it('claims take the highest priority first, then the oldest, making them running and owned, with the taker in the trail', async () => {
      const { store } = ctx;
      const low = (await store.queueRun(queued())).run;
      const high = (await store.queueRun(queued({ priority: 9 }))).run;
      const low2 = (await store.queueRun(queued())).run;
      expect((await store.listQueued(10)).map((r) => r.id)).toEqual([high.id, low.id, low2.id]);
      const took = await store.claimQueuedRuns({ ...owner('w1'), host: 'build-2', pid: 22 }, LONG, 2);
      expect(took.map((r) => [r.id, r.status, r.owner?.token])).toEqual([
        [high.id, 'running', 'w1'],
        [low.id, 'running', 'w1'],
      ]);
      expect((await store.listEvents(high.id)).at(-1)).toMatchObject({
        type: 'run_taken',
        data: { host: 'build-2', pid: 22 },
      });
      expect((await store.claimQueuedRuns(owner('w2'), LONG, 5)).map((r) => r.id)).toEqual([low2.id]);
      expect(await store.claimQueuedRuns(owner('w3'), LONG, 5)).toEqual([]);
    });

    it('a workflow with concurrency 1 has one run driven per key; a waiting run holds its place; an ended one frees it', async () => {
      const { store } = ctx;
      const prod = [1, 2].map(() => queued({ queueKey: 'prod', concurrency: 1 }));
      const [p1, p2] = [(await store.queueRun(prod[0]!)).run, (await store.queueRun(prod[1]!)).run];
      const s1 = (await store.queueRun(queued({ queueKey: 'staging', concurrency: 1 }))).run;
      const took = await store.claimQueuedRuns(owner('w1'), LONG, 10);
      expect(took.map((r) => r.id)).toEqual([p1.id, s1.id]);
      await store.setRunStatus('w1', p1.id, 'waiting_human', { type: 'waiting', actor: 'shop', channel: 'engine' });
      expect(await store.claimQueuedRuns(owner('w2'), LONG, 10)).toEqual([]);
      await store.finishRun('w1', p1.id, {
        status: 'completed',
        result: null,
        event: { type: 'completed', actor: 'shop', channel: 'engine' },
      });
      expect((await store.claimQueuedRuns(owner('w2'), LONG, 10)).map((r) => r.id)).toEqual([p2.id]);
    });

    it('racing workers on several connections never drive two runs of one key at once, and take every run once', async () => {
      const { store, clock } = ctx;
      const ids: number[] = [];
      for (let i = 0; i < 6; i++) ids.push((await store.queueRun(queued({ queueKey: 'prod', concurrency: 2 }))).run.id);
      for (let i = 0; i < 6; i++) ids.push((await store.queueRun(queued({ spec: 'triage' }))).run.id);
      const conns = [store, await adapter.connect(store, () => clock.t), await adapter.connect(store, () => clock.t)];
      try {
        const took = (
          await Promise.all(conns.flatMap((c, i) => [0, 1].map((j) => c.claimQueuedRuns(owner(`w${i}-${j}`), LONG, 4))))
        ).flat();
        expect(took.filter((r) => r.queueKey === 'prod')).toHaveLength(2);
        expect(took.filter((r) => r.spec === 'triage')).toHaveLength(6);
        expect(new Set(took.map((r) => r.id)).size).toBe(took.length);
      } finally {
        for (const c of conns.slice(1)) await c.close();
      }
    });

    it('a queued run stopped ends at once and is not taken (a run taken is not dequeued); a new priority reorders the queue (and only while queued)', async () => {
      const { store } = ctx;
      const a = (await store.queueRun(queued())).run;
      const b = (await store.queueRun(queued())).run;
      expect(await store.setPriority(b.id, 3, 'ann', 'cli')).toBe(true);
      expect((await store.listQueued(10)).map((r) => r.id)).toEqual([b.id, a.id]);
      expect((await store.listEvents(b.id)).at(-1)).toMatchObject({ type: 'reprioritized', data: { priority: 3 } });
      expect(await store.dequeue(b.id, 'not needed', 'ann')).toBe(true);
      expect(await store.getRun(b.id)).toMatchObject({ status: 'stuck', reason: 'not needed', stop: { by: 'ann' } });
      expect((await store.listEvents(b.id)).at(-1)).toMatchObject({ type: 'stopped', data: { queued: true } });
      expect(await store.dequeue(b.id, 'again', 'ann')).toBe(false);
      expect((await store.claimQueuedRuns(owner('w'), LONG, 10)).map((r) => r.id)).toEqual([a.id]);
      expect(await store.setPriority(a.id, 1, 'ann', 'cli')).toBe(false);
    });

    it('requeue hands a failed run, or one whose driver is gone, back to the workers with its log; never a live one', async () => {
      const { store, clock } = ctx;
      const failed = (await store.queueRun(queued())).run;
      const gone = (await store.queueRun(queued())).run;
      const live = (await store.queueRun(queued())).run;
      await store.claimQueuedRuns(owner('w'), 10_000, 2);
      await store.claimQueuedRuns(owner('x'), LONG, 1);
      await store.finishRun('w', failed.id, {
        status: 'failed',
        reason: 'boom',
        event: { type: 'failed', actor: 'shop', channel: 'engine' },
      });
      expect(await store.requeue(gone.id, 'ann', 'cli')).toBe(false);
      clock.t += 10_001;
      expect(await store.requeue(live.id, 'ann', 'cli')).toBe(false);
      for (const id of [failed.id, gone.id]) {
        expect(await store.requeue(id, 'ann', 'cli')).toBe(true);
        expect(await store.getRun(id)).toMatchObject({ status: 'queued', owner: null, reason: null, endedAt: null });
        expect((await store.listEvents(id)).at(-1)).toMatchObject({
          type: 'retried',
          actor: 'ann',
          data: { queued: true },
        });
      }
      expect((await store.claimQueuedRuns(owner('y'), LONG, 5)).map((r) => r.id)).toEqual([failed.id, gone.id]);
    });

    it('a foreground claim takes its own run only in its turn: runs of its group ahead in the queue or driven come first', async () => {
      const { store } = ctx;
      const first = (await store.queueRun(queued({ concurrency: 1 }))).run;
      const mine = (await store.queueRun(queued({ concurrency: 1 }))).run;
      expect(await store.claimQueuedRuns(owner(T), LONG, 1, mine.id)).toEqual([]);
      expect((await store.claimQueuedRuns(owner('w'), LONG, 1, first.id)).map((r) => r.id)).toEqual([first.id]);
      expect(await store.claimQueuedRuns(owner(T), LONG, 1, mine.id)).toEqual([]);
      await store.finishRun('w', first.id, {
        status: 'failed',
        reason: 'x',
        event: { type: 'failed', actor: 'shop', channel: 'engine' },
      });
      expect((await store.claimQueuedRuns(owner(T), LONG, 1, mine.id)).map((r) => r.id)).toEqual([mine.id]);
    });
  });
}
