import { describe, expect, it } from 'vitest';
import { exec, newRun, pause, T, useStore, type StoreAdapter } from './fixtures.js';

export function metricCounts(adapter: StoreAdapter) {
  describe('metric counts', () => {
    const ctx = useStore(adapter);

    it('counts runs by shown status and workflow, open asks and the oldest, agent steps by outcome and duration, timers due', async () => {
      const { store, clock } = ctx;
      const asked = await store.createRun(newRun());
      await store.startExecution(T, pause(asked.id, '1'));
      clock.t += 5_000;
      const worked = await store.createRun(newRun({ spec: 'deploy' }));
      await store.startExecution(T, exec(worked.id, '1', { agent: 'coder' }));
      await store.completeExecution(
        T,
        worked.id,
        '1',
        { status: 'DONE' },
        {
          costUsd: 0.25,
          numTurns: 1,
          durationMs: 10,
          tokens: { input: 1000, output: 100, cacheRead: 10, cacheWrite: null },
        },
      );
      await store.startExecution(T, exec(worked.id, '2', { agent: 'coder' }));
      await store.completeExecution(
        T,
        worked.id,
        '2',
        { status: 'DONE' },
        {
          costUsd: 0.5,
          numTurns: 3,
          durationMs: 45_000,
          tokens: { input: 2000, output: 200, cacheRead: null, cacheWrite: 3 },
        },
      );
      // Its driver's lease runs out: shown interrupted.
      await store.createRun(newRun({ spec: 'deploy', leaseMs: 1_000 }));
      clock.t += 2_000;
      const c = await store.metricCounts();
      expect(c.at).toBe(clock.t);
      expect(c.runs.sort((a, b) => `${a.workflow}${a.status}`.localeCompare(`${b.workflow}${b.status}`))).toEqual([
        { status: 'interrupted', workflow: 'deploy', count: 1 },
        { status: 'running', workflow: 'deploy', count: 1 },
        { status: 'waiting_human', workflow: 'feature', count: 1 },
      ]);
      expect([c.asksWaiting, clock.t - c.oldestAskSince!]).toEqual([1, 7_000]);
      expect(c.steps).toEqual([
        {
          agent: 'coder',
          status: 'completed',
          count: 2,
          attempts: 2,
          costUsd: 0.75,
          tokens: { input: 3000, output: 300, cache_read: 10, cache_write: 3 },
        },
      ]);
      // At most 1, 5, 15, 30 s: the 10 ms step; from 60 s on, the 45 s one too.
      expect(c.durations).toEqual([
        { agent: 'coder', atMost: [1, 1, 1, 1, 2, 2, 2, 2, 2, 2], count: 2, sumMs: 45_010 },
      ]);
      expect(c.timersDue).toBe(0);
    });
  });
}
