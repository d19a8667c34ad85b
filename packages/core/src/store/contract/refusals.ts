import { describe, expect, it } from 'vitest';
import { ConflictError, NotFoundError } from '../../errors.js';
import type { Store } from '../store.js';
import { ended, exec, newRun, T, useStore, type StoreAdapter } from './fixtures.js';

/** What a refused write must leave as it was: the run's row, calls and trail. */
const snapshot = async (store: Store, id: number) =>
  JSON.stringify([await store.getRun(id), await store.loadExecutions(id), await store.listEvents(id)]);

/**
 * Writes that make no sense for the state a call or run is in are refused with a typed error
 * and write nothing — an adapter never leaves a constraint error, or half a write, behind.
 */
export function refusals(adapter: StoreAdapter) {
  describe('refusals', () => {
    const ctx = useStore(adapter);

    it('startExecution with a key the run already has: ConflictError, nothing written', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const before = await snapshot(store, run.id);
      await expect(store.startExecution(T, exec(run.id, '1', { agent: 'other' }))).rejects.toThrow(ConflictError);
      await expect(store.startExecution(T, exec(run.id, '1'))).rejects.toThrow(/already has a call 1/);
      expect(await snapshot(store, run.id)).toBe(before);
      // The next call still gets the next place in the run's order.
      expect((await store.startExecution(T, exec(run.id, '2'))).seq).toBe(2);
    });

    it('startExecution on an ended run: ConflictError, nothing written', async () => {
      const { store } = ctx;
      for (const status of ['completed', 'stuck', 'failed'] as const) {
        const run = await store.createRun(newRun());
        await store.finishRun(T, run.id, ended(status, 'over'));
        const before = await snapshot(store, run.id);
        await expect(store.startExecution(T, exec(run.id, '1')), status).rejects.toThrow(ConflictError);
        await expect(store.startExecution(T, exec(run.id, '1')), status).rejects.toThrow(
          new RegExp(`run ${run.id} has ended \\(${status}`),
        );
        expect(await snapshot(store, run.id)).toBe(before);
      }
    });

    it('a failed run set running again (a retry) starts calls again', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.finishRun(T, run.id, ended('failed', 'agent crashed'));
      await store.setRunStatus(T, run.id, 'running', { type: 'retried', actor: 'shop', channel: 'engine' });
      expect(await store.startExecution(T, exec(run.id, '1'))).toMatchObject({ key: '1', status: 'running' });
    });

    it('completeExecution on a call not open (completed, failed, missing): ConflictError, nothing written', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.completeExecution(T, run.id, '1', 'first');
      await store.startExecution(T, exec(run.id, '2'));
      await store.cancelExecutions(T, run.id, ['2'], 'a sibling failed');
      const before = await snapshot(store, run.id);
      await expect(store.completeExecution(T, run.id, '1', 'second')).rejects.toThrow(ConflictError);
      await expect(store.completeExecution(T, run.id, '2', 'late')).rejects.toThrow(ConflictError);
      await expect(store.completeExecution(T, run.id, '9', 'never')).rejects.toThrow(ConflictError);
      expect(await snapshot(store, run.id)).toBe(before);
      expect(await store.getExecution(run.id, '1')).toMatchObject({ result: 'first', delivered: 1 });
    });

    it('markWaiting on a completed call: ConflictError; on a missing one: NotFoundError; nothing written', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.completeExecution(T, run.id, '1', 'done');
      const before = await snapshot(store, run.id);
      const ask = {
        waitingFor: 'which db?',
        awaiting: 'input',
        timers: [{ kind: 'remind' as const, dueAt: ctx.clock.t + 1, data: {} }],
      };
      await expect(store.markWaiting(T, run.id, '1', ask, 'waiting_human')).rejects.toThrow(ConflictError);
      await expect(store.markWaiting(T, run.id, '9', ask, 'waiting_human')).rejects.toThrow(NotFoundError);
      expect(await snapshot(store, run.id)).toBe(before);
      expect(await store.nextTimer([run.id])).toBeNull();
    });

    it('markWaiting asks again on a call that failed (a retried run re-opens its pause)', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.cancelExecutions(T, run.id, ['1'], 'gone');
      expect(
        await store.markWaiting(T, run.id, '1', { waitingFor: 'again?', awaiting: 'checkpoint' }, 'waiting_human'),
      ).toMatchObject({ status: 'waiting_human', ask: 1 });
    });

    it('claimAsk on a run that does not exist: NotFoundError naming it', async () => {
      const { store } = ctx;
      const id = (await store.createRun(newRun())).id + 100;
      const claim = { runId: id, key: '1', ask: 1, by: 'ann', channel: 'cli' as const };
      await expect(store.claimAsk(claim, { ttlMs: 60_000 })).rejects.toThrow(NotFoundError);
      await expect(store.claimAsk(claim, { ttlMs: 60_000 })).rejects.toThrow(new RegExp(`no run ${id}`));
    });
  });
}
