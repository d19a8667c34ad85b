import { describe, expect, it } from 'vitest';
import { exec, newRun, T, useStore, type StoreAdapter } from './fixtures.js';

const tokens = (input: number, output: number, cacheRead: number | null, cacheWrite: number | null) => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});

/** A call's spend: each agent invocation's cost and tokens add up, however the invocation ended. */
export function spend(adapter: StoreAdapter) {
  describe('a call spends over its invocations', () => {
    const ctx = useStore(adapter);

    it('sums the cost and tokens of an ask and of the resumed session that finished, not only the last', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const asked = { costUsd: 0.25, numTurns: 2, durationMs: 10, tokens: tokens(1000, 100, 500, null) };
      await store.markWaiting(T, run.id, '1', { waitingFor: 'q', awaiting: 'input', metrics: asked }, 'waiting_human');
      await store.restartExecution(T, run.id, '1');
      // Progress while the resumed session works: its running turns, never added to the spend.
      await store.setActivity(T, run.id, '1', { text: 'Edit a.ts', numTurns: 1, costUsd: 9 });
      expect(await store.getExecution(run.id, '1')).toMatchObject({ costUsd: 0.25, numTurns: 1 });
      const finished = { costUsd: 0.5, numTurns: 3, durationMs: 20, tokens: tokens(2000, 300, 700, 40) };
      await store.completeExecution(T, run.id, '1', { status: 'DONE' }, finished);
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        costUsd: 0.75,
        numTurns: 3,
        durationMs: 20,
        tokens: { input: 3000, output: 400, cacheRead: 1200, cacheWrite: 40 },
      });
      expect(await store.runCost(run.id)).toBe(0.75);
    });

    it('keeps what is known when an invocation reports nothing, and nothing when none ever did', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.startExecution(T, exec(run.id, '2'));
      await store.markWaiting(
        T,
        run.id,
        '1',
        {
          waitingFor: 'q',
          awaiting: 'input',
          metrics: { costUsd: 0.1, numTurns: 1, durationMs: 1, tokens: tokens(5, 6, null, null) },
        },
        'waiting_human',
      );
      await store.completeExecution(T, run.id, '1', 'ok', { costUsd: null, numTurns: null, durationMs: null });
      await store.completeExecution(T, run.id, '2', 'ok', { costUsd: null, numTurns: 1, durationMs: 1 });
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        costUsd: 0.1,
        tokens: { input: 5, output: 6, cacheRead: null, cacheWrite: null },
      });
      expect(await store.getExecution(run.id, '2')).toMatchObject({
        costUsd: null,
        tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
      });
    });
  });
}
