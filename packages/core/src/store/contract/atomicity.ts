import { describe, expect, it } from 'vitest';
import { eventTypes, exec, newRun, pause, T, useStore, type StoreAdapter } from './fixtures.js';

/** Each operation is one transaction: when its last write (the audit event) fails, none of it stays. */
export function atomicity(adapter: StoreAdapter) {
  describe('each operation is all or nothing', () => {
    const ctx = useStore(adapter);

    it('a pause is recorded waiting in one transaction: it exists and waits, or it does not exist', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      const undo = await adapter.failEvents(store, 'waiting');
      await expect(store.startExecution(T, pause(run.id, '1'))).rejects.toThrow();
      expect(await store.loadExecutions(run.id)).toEqual([]);
      expect((await store.getRun(run.id))!.status).toBe('running');
      await undo();
      await store.startExecution(T, pause(run.id, '1'));
      expect(await store.getExecution(run.id, '1')).toMatchObject({ status: 'waiting_human', ask: 1, seq: 1 });
    });

    it('completeExecution moves call and run together, or not at all (and spends no delivery number)', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.markWaiting(T, run.id, '1', { waitingFor: 'which db?', awaiting: 'input' }, 'waiting_human');
      const undo = await adapter.failEvents(store, 'execution_finished');
      await expect(store.completeExecution(T, run.id, '1', { status: 'DONE' })).rejects.toThrow();
      expect((await store.getRun(run.id))!.status).toBe('waiting_human');
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        status: 'waiting_human',
        result: null,
        delivered: null,
      });
      await undo();
      expect(await store.completeExecution(T, run.id, '1', { status: 'DONE' })).toBe(1);
      expect((await store.getRun(run.id))!.status).toBe('running');
    });

    it('finishRun ends the run and fails its calls together, or not at all', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const undo = await adapter.failEvents(store, 'failed');
      await expect(
        store.finishRun(T, run.id, {
          status: 'failed',
          reason: 'x',
          event: { type: 'failed', actor: 'shop', channel: 'engine' },
        }),
      ).rejects.toThrow();
      expect(await store.getRun(run.id)).toMatchObject({ status: 'running', endedAt: null });
      expect((await store.getExecution(run.id, '1'))!.status).toBe('running');
      await undo();
      expect(await eventTypes(store, run.id)).toEqual(['run_started', 'execution_started']);
    });

    it('an answer and its event are one: a failed event leaves the ask open', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, pause(run.id, '1'));
      const undo = await adapter.failEvents(store, 'human_answered');
      await expect(
        store.recordAnswer({
          runId: run.id,
          key: '1',
          ask: 1,
          verdict: null,
          decisions: null,
          status: 'GO',
          message: null,
          responder: 'ann',
          channel: 'cli',
        }),
      ).rejects.toThrow();
      expect(await store.getAnswer(run.id, '1', 1)).toBeNull();
      expect(await store.answeredRuns()).toEqual([]);
      await undo();
    });
  });
}
