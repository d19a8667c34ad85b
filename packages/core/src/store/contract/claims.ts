import { describe, expect, it } from 'vitest';
import { ConflictError, LostOwnershipError } from '../../errors.js';
import type { Store } from '../store.js';
import { answerBy, eventTypes, T, useStore, waitingRun, type StoreAdapter } from './fixtures.js';

const HOUR = 3_600_000;
const ask = (runId: number, by = 'ann') => ({ runId, key: '1', ask: 1, by, channel: 'cli' as const });
/** Call 1 waits on its first ask, with a reminder due in 10 minutes. */
const setUp = (store: Store, now: number) =>
  waitingRun(store, [{ kind: 'remind', dueAt: now + 600_000, data: { targets: ['desktop'], after_seconds: 600 } }]);

export function claims(adapter: StoreAdapter) {
  describe('claims on open asks', () => {
    const ctx = useStore(adapter);

    it('a claim comes back with the ask from every read of waiting calls, and is in the trail', async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      expect((await store.getExecution(id, '1'))!.claim).toBeNull();
      const claim = await store.claimAsk({ ...ask(id), channel: 'web' }, { ttlMs: HOUR });
      expect(claim).toEqual({
        runId: id,
        key: '1',
        ask: 1,
        by: 'ann',
        channel: 'web',
        since: clock.t,
        until: clock.t + HOUR,
        refreshed: false,
      });
      const expected = { by: 'ann', channel: 'web', since: clock.t, until: clock.t + HOUR };
      expect((await store.getExecution(id, '1'))!.claim).toEqual(expected);
      expect((await store.openExecutions(id))[0].claim).toEqual(expected);
      expect((await store.listWaiting())[0].execution.claim).toEqual(expected);
      expect((await store.listEvents(id)).filter((e) => e.type === 'claimed')).toMatchObject([
        { key: '1', actor: 'ann', channel: 'web', data: { ask: 1, until: new Date(clock.t + HOUR).toISOString() } },
      ]);
    });

    it("one live claim: someone else's is a ConflictError naming them; claiming again refreshes one's own", async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      const since = clock.t;
      await store.claimAsk(ask(id), { ttlMs: HOUR });
      clock.t += 60_000;
      await expect(store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).rejects.toThrow(ConflictError);
      await expect(store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).rejects.toThrow(
        new RegExp(
          `^${id}\\.1 is claimed by ann \\(cli\\) since \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d [+-]\\d\\d:\\d\\d`,
        ),
      );
      expect(await store.claimAsk(ask(id), { ttlMs: HOUR })).toMatchObject({
        by: 'ann',
        since,
        until: clock.t + HOUR,
        refreshed: true,
      });
    });

    it('racing claimers: exactly one gets the ask', async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      const results = await Promise.allSettled(
        ['a', 'b', 'c', 'd', 'e', 'f'].map((p) => store.claimAsk(ask(id, p), { ttlMs: HOUR })),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(ConflictError);
      expect((await store.getExecution(id, '1'))!.claim!.by).toBe(
        (won[0] as PromiseFulfilledResult<{ by: string }>).value.by,
      );
    });

    it("ages out by the store's clock: then it reads as none and anyone may claim", async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      await store.claimAsk(ask(id), { ttlMs: HOUR });
      clock.t += HOUR - 1;
      expect((await store.getExecution(id, '1'))!.claim).toMatchObject({ by: 'ann' });
      await expect(store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).rejects.toThrow(ConflictError);
      clock.t += 1;
      expect((await store.getExecution(id, '1'))!.claim).toBeNull();
      expect((await store.listWaiting())[0].execution.claim).toBeNull();
      expect(await store.claimAsk(ask(id, 'bob'), { ttlMs: HOUR })).toMatchObject({
        by: 'bob',
        since: clock.t,
        refreshed: false,
      });
    });

    it("releases one's own; someone else's only when taken over (by null); nothing to release is null", async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      await store.claimAsk(ask(id), { ttlMs: HOUR });
      await expect(store.releaseClaim({ ...ask(id, 'bob'), actor: 'bob' })).rejects.toThrow(ConflictError);
      expect(await store.releaseClaim({ ...ask(id), actor: 'ann' })).toMatchObject({ by: 'ann' });
      expect((await store.getExecution(id, '1'))!.claim).toBeNull();
      expect(await store.releaseClaim({ ...ask(id), actor: 'ann' })).toBeNull();
      await store.claimAsk(ask(id), { ttlMs: HOUR });
      expect(await store.releaseClaim({ ...ask(id), by: null, actor: 'bob' })).toMatchObject({ by: 'ann' });
      const released = (await store.listEvents(id)).filter((e) => e.type === 'claim_released');
      expect(released.map((e) => [e.actor, e.data!.claimed_by])).toEqual([
        ['ann', 'ann'],
        ['bob', 'ann'],
      ]);
    });

    it('only an open ask is claimed; an answered ask shows no claim', async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      await expect(store.claimAsk({ ...ask(id), ask: 2 }, { ttlMs: HOUR })).rejects.toThrow(ConflictError);
      await expect(store.claimAsk({ ...ask(id), ask: 2 }, { ttlMs: HOUR })).rejects.toThrow(
        new RegExp(`^${id}\\.1\\.2 is not open any more`),
      );
      await store.claimAsk(ask(id), { ttlMs: HOUR });
      await store.recordAnswer(answerBy(id, '1', 'DONE', 'bob'));
      expect(await store.getExecution(id, '1')).toMatchObject({ status: 'waiting_human', claim: null });
      await expect(store.claimAsk(ask(id), { ttlMs: HOUR })).rejects.toThrow(
        new RegExp(`^${id}\\.1 \\(run ${id} call 1\\) was already answered DONE by bob \\(cli\\)`),
      );
      expect((await eventTypes(store, id)).filter((t) => t === 'claimed')).toHaveLength(1);
    });

    it('a due reminder meeting a claim is put off until it ages out (fenced); a release brings it back', async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      const [timer] = await store.dueTimers(clock.t + 600_000);
      expect(await store.putOffTimer(T, timer)).toBeNull();
      const claim = await store.claimAsk(ask(id), { ttlMs: HOUR });
      await expect(store.putOffTimer('other-token', timer)).rejects.toThrow(LostOwnershipError);
      clock.t += 600_000;
      expect(await store.putOffTimer(T, timer)).toMatchObject({ by: 'ann', until: claim.until });
      expect(await store.dueTimers(clock.t)).toEqual([]);
      expect(await store.nextTimer([id])).toBe(claim.until);
      const [put] = (await store.listEvents(id)).filter((e) => e.type === 'timer_put_off');
      expect(put).toMatchObject({ actor: 'system:timer', data: { timer: 'remind', claimed_by: 'ann' } });
      clock.t += 60_000;
      await store.releaseClaim({ ...ask(id), actor: 'ann' });
      expect((await store.dueTimers(clock.t)).map((t) => [t.id, t.dueAt])).toEqual([[timer.id, clock.t]]);
      // Back as it was: the put-off mark gone, the rest of its data untouched.
      expect((await store.dueTimers(clock.t))[0]!.data).toEqual(timer.data);
    });

    it('lapsedSince names a claim that aged out in the window, by when', async () => {
      const { store, clock } = ctx;
      const id = await setUp(store, clock.t);
      const claim = await store.claimAsk(ask(id), { ttlMs: HOUR });
      expect(await store.lapsedSince(clock.t, claim.until - 1)).toEqual([]);
      expect(await store.lapsedSince(claim.until - 1, claim.until + 1)).toEqual([{ runId: id, at: claim.until }]);
    });
  });
}
