import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../errors.js';
import { ended, eventTypes, exec, newRun, T, useStore, type StoreAdapter } from './fixtures.js';

export function stopEventsDelete(adapter: StoreAdapter) {
  describe('stop requests', () => {
    const ctx = useStore(adapter);

    it('is recorded for the owner with an event; the run keeps going until its owner ends it', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      const stopped = await store.requestStop(run.id, 'enough', 'bob');
      expect(stopped).toMatchObject({ status: 'running', stop: { reason: 'enough', by: 'bob' } });
      expect((await store.getRun(run.id))!.stop).toMatchObject({ reason: 'enough', by: 'bob' });
      expect((await store.listEvents(run.id)).at(-1)).toMatchObject({
        type: 'stop_requested',
        actor: 'bob',
        data: { reason: 'enough' },
      });
    });

    it('an ended run refuses one (ConflictError), and writes nothing', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.finishRun(T, run.id, ended('stuck', 'enough'));
      const before = await store.listEvents(run.id);
      await expect(store.requestStop(run.id, 'again', 'bob')).rejects.toThrow(ConflictError);
      expect(await store.listEvents(run.id)).toEqual(before);
      expect((await store.getRun(run.id))!.stop).toBeNull();
    });
  });

  describe('events: append-only, in order', () => {
    const ctx = useStore(adapter);

    it('come back in the order appended, with ids going up, and after a given id only the later ones', async () => {
      const { store } = ctx;
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun());
      for (let i = 0; i < 5; i++) {
        await store.appendEvent(T, a.id, { type: 'log', actor: 'workflow', channel: 'engine', data: { n: i } });
        await store.appendEvent(null, b.id, { type: 'note', actor: 'ann', channel: 'cli', data: { n: i } });
      }
      const events = await store.listEvents(a.id);
      expect(events.map((e) => e.data?.n ?? null)).toEqual([null, 0, 1, 2, 3, 4]);
      expect(events.every((e) => e.runId === a.id)).toBe(true);
      const ids = events.map((e) => e.id);
      expect([...ids].sort((x, y) => x - y)).toEqual(ids);
      expect(new Set(ids).size).toBe(ids.length);
      expect((await store.listEvents(a.id, ids[3])).map((e) => e.data?.n)).toEqual([3, 4]);
      expect(await store.listEvents(a.id, ids.at(-1))).toEqual([]);
      expect((await store.lastEvents(a.id, 2)).map((e) => e.data?.n)).toEqual([3, 4]);
      expect(await store.lastEvents(a.id, 10)).toEqual(events);
      expect((await store.listEvents(b.id)).map((e) => [e.type, e.actor])).toEqual([
        ['run_started', 'ann'],
        ...Array(5).fill(['note', 'ann']),
      ]);
    });

    it('countLogs counts log lines per thread (data.thread; none is the main thread "")', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      const log = (thread?: string) =>
        store.appendEvent(T, run.id, {
          type: 'log',
          actor: 'workflow',
          channel: 'engine',
          data: { message: 'x', ...(thread ? { thread } : {}) },
        });
      await log();
      await log();
      await log('2/1');
      await store.appendEvent(T, run.id, {
        type: 'note',
        actor: 'workflow',
        channel: 'engine',
        data: { thread: '2/1' },
      });
      const counts = await store.countLogs(run.id);
      expect(counts.get('')).toBe(2);
      expect(counts.get('2/1')).toBe(1);
    });
  });

  describe('deleteRun (shop prune)', () => {
    const ctx = useStore(adapter);

    it('deletes an ended run with its calls, answers and trail; ids are not reused; twice is missing', async () => {
      const { store } = ctx;
      const gone = await store.createRun(newRun({ leaseMs: 0 }));
      const kept = await store.createRun(newRun({ leaseMs: 0 }));
      await store.startExecution(T, exec(gone.id, '1'));
      await store.finishRun(T, gone.id, ended());
      expect(await store.deleteRun(gone.id)).toBe('deleted');
      expect(await store.getRun(gone.id)).toBeNull();
      expect(await store.loadExecutions(gone.id)).toEqual([]);
      expect(await store.listEvents(gone.id)).toEqual([]);
      expect(await store.deleteRun(gone.id)).toBe('missing');
      expect(await eventTypes(store, kept.id)).toEqual(['run_started']);
      expect((await store.createRun(newRun())).id).toBeGreaterThan(kept.id);
    });

    it('refuses a run not ended, and an ended run a live driver still holds', async () => {
      const { store } = ctx;
      const open = await store.createRun(newRun({ leaseMs: 0 }));
      expect(await store.deleteRun(open.id)).toBe('not_ended');
      const held = await store.createRun(newRun());
      await store.finishRun(T, held.id, ended());
      expect(await store.deleteRun(held.id)).toBe('owned');
      expect(await store.getRun(held.id)).not.toBeNull();
    });
  });
}
