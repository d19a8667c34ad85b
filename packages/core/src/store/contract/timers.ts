import { describe, expect, it } from 'vitest';
import type { Timer } from '../../types.js';
import { answerBy, eventTypes, T, useStore, waitingRun, type StoreAdapter } from './fixtures.js';

const MIN = 60_000;
const timeoutEvent = { type: 'timed_out', actor: 'system:timeout', channel: 'engine' as const };

export function timers(adapter: StoreAdapter) {
  describe('timers', () => {
    const ctx = useStore(adapter);
    /** Call 1 waits with a reminder due in 10 minutes and a timeout in 30. */
    const setUp = () =>
      waitingRun(ctx.store, [
        { kind: 'remind', dueAt: ctx.clock.t + 10 * MIN, data: { targets: ['desktop'], after_seconds: 600 } },
        { kind: 'timeout', dueAt: ctx.clock.t + 30 * MIN, data: { on_timeout: 'stuck' } },
      ]);

    it('come due by the time asked, oldest first, per run; nextTimer is the earliest pending', async () => {
      const { store, clock } = ctx;
      const id = await setUp();
      const other = await waitingRun(store, [
        { kind: 'timeout', dueAt: clock.t + 5 * MIN, data: { on_timeout: 'stuck' } },
      ]);
      expect(await store.dueTimers(clock.t)).toEqual([]);
      expect(await store.nextTimer()).toBe(clock.t + 5 * MIN);
      expect(await store.nextTimer([id])).toBe(clock.t + 10 * MIN);
      expect(await store.nextTimer([id + other + 100])).toBeNull();
      const due = await store.dueTimers(clock.t + 30 * MIN);
      expect(due.map((t) => [t.runId, t.kind])).toEqual([
        [other, 'timeout'],
        [id, 'remind'],
        [id, 'timeout'],
      ]);
      expect(due[1]).toMatchObject({
        key: '1',
        ask: 1,
        firedAt: null,
        data: { targets: ['desktop'], after_seconds: 600 },
      });
      expect((await store.dueTimers(clock.t + 30 * MIN, [id])).map((t) => t.kind)).toEqual(['remind', 'timeout']);
    });

    it('fires once: its event and next timer, then it is no longer due', async () => {
      const { store, clock } = ctx;
      const id = await setUp();
      const [remind] = await store.dueTimers(clock.t + 10 * MIN);
      clock.t += 10 * MIN;
      const next = {
        kind: 'remind' as const,
        dueAt: clock.t + 10 * MIN,
        data: { targets: ['desktop'], after_seconds: 1200 },
      };
      expect(
        await store.fireTimer(T, remind, {
          event: { type: 'reminded', actor: 'system:timer', channel: 'engine' },
          next,
        }),
      ).toBe(true);
      expect(
        await store.fireTimer(T, remind, { event: { type: 'reminded', actor: 'system:timer', channel: 'engine' } }),
      ).toBe(false);
      expect((await eventTypes(store, id)).filter((t) => t === 'reminded')).toHaveLength(1);
      expect(await store.dueTimers(clock.t)).toEqual([]);
      expect((await store.dueTimers(clock.t + 10 * MIN)).map((t) => [t.kind, t.data.after_seconds])).toEqual([
        ['remind', 1200],
      ]);
    });

    it("a timeout's effect ends the run in the same step, or answers the ask as system:timeout", async () => {
      const { store, clock } = ctx;
      const id = await setUp();
      const timeout = (await store.dueTimers(clock.t + 30 * MIN)).find((t) => t.kind === 'timeout')!;
      expect(
        await store.fireTimer(T, timeout, {
          event: timeoutEvent,
          end: {
            status: 'stuck',
            reason: 'no answer in 30m',
            event: { type: 'stuck', actor: 'system:timeout', channel: 'engine' },
          },
        }),
      ).toBe(true);
      expect(await store.getRun(id)).toMatchObject({ status: 'stuck', reason: 'no answer in 30m' });
      expect(await eventTypes(store, id)).toEqual(expect.arrayContaining(['timed_out', 'stuck']));

      const other = await setUp();
      const t2 = (await store.dueTimers(clock.t + 30 * MIN, [other])).find((t) => t.kind === 'timeout')!;
      const answer = { ...answerBy(other, '1', 'DEFAULT', 'system:timeout'), channel: 'engine' as const };
      expect(await store.fireTimer(T, t2, { event: timeoutEvent, answer })).toBe(true);
      expect(await store.getAnswer(other, '1', 1)).toMatchObject({ status: 'DEFAULT', responder: 'system:timeout' });
    });

    it('a timer whose ask was answered meanwhile is void: marked fired, no effect', async () => {
      const { store, clock } = ctx;
      const id = await setUp();
      const timeout = (await store.dueTimers(clock.t + 30 * MIN)).find((t) => t.kind === 'timeout')!;
      await store.recordAnswer(answerBy(id, '1', 'DONE'));
      const end = {
        status: 'stuck' as const,
        reason: 'late',
        event: { type: 'stuck', actor: 'system:timeout', channel: 'engine' as const },
      };
      expect(await store.fireTimer(T, timeout, { event: timeoutEvent, end })).toBe(false);
      expect((await store.getRun(id))!.status).toBe('waiting_human');
      expect(await eventTypes(store, id)).not.toContain('timed_out');
      expect((await store.dueTimers(clock.t + 30 * MIN)).map((t: Timer) => t.kind)).not.toContain('timeout');
    });

    it('a timeout on an answered ask cannot answer it a second time', async () => {
      const { store, clock } = ctx;
      const id = await setUp();
      const timeout = (await store.dueTimers(clock.t + 30 * MIN)).find((t) => t.kind === 'timeout')!;
      await store.recordAnswer(answerBy(id, '1', 'DONE'));
      expect(
        await store.fireTimer(T, timeout, {
          event: timeoutEvent,
          answer: answerBy(id, '1', 'DEFAULT', 'system:timeout'),
        }),
      ).toBe(false);
      expect(await store.listAnswers(id)).toMatchObject([{ status: 'DONE', responder: 'ann' }]);
    });

    it('a timer of an ask asked again (the call moved on) is void', async () => {
      const { store, clock } = ctx;
      const id = await setUp();
      const [remind] = await store.dueTimers(clock.t + 10 * MIN);
      await store.recordAnswer(answerBy(id, '1', 'A1'));
      await store.markWaiting(T, id, '1', { waitingFor: 'again?', awaiting: 'input' }, 'waiting_human');
      expect(
        await store.fireTimer(T, remind, { event: { type: 'reminded', actor: 'system:timer', channel: 'engine' } }),
      ).toBe(false);
      expect(await eventTypes(store, id)).not.toContain('reminded');
    });
  });
}
