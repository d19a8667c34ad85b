import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../errors.js';
import { ENDED_SESSION_KEPT_MS } from '../access-store.js';
import { SCHEMA_VERSION } from '../schema-version.js';
import { ended, exec, newRun, T, useStore, type StoreAdapter } from './fixtures.js';

export function accessAndLists(adapter: StoreAdapter) {
  describe('settings and people (access)', () => {
    const ctx = useStore(adapter);

    it('settings: set overwrites, init keeps the first writer', async () => {
      const { store } = ctx;
      expect(await store.getSetting('public_url')).toBeNull();
      await store.setSetting('public_url', 'https://a');
      await store.setSetting('public_url', 'https://b');
      expect(await store.getSetting('public_url')).toBe('https://b');
      const firsts = await Promise.all(['k1', 'k2', 'k3'].map((v) => store.initSetting('link_key', v)));
      expect(new Set(firsts).size).toBe(1);
      expect(await store.getSetting('link_key')).toBe(firsts[0]);
      expect(await store.initSetting('link_key', 'later')).toBe(firsts[0]);
    });

    it('people: one unrevoked per name (ConflictError), found by token hash, revoked ones replaced', async () => {
      const { store, clock } = ctx;
      await store.addPerson({ name: 'ann', tokenHash: 'h1', by: 'root' });
      await expect(store.addPerson({ name: 'ann', tokenHash: 'h2', by: 'root' })).rejects.toThrow(ConflictError);
      clock.t += 120_000;
      expect(await store.findPersonByTokenHash('h1')).toMatchObject({
        name: 'ann',
        createdBy: 'root',
        revokedAt: null,
        lastSeenAt: clock.t,
      });
      expect(await store.findPersonByTokenHash('h2')).toBeNull();
      expect(await store.revokePerson('ann')).toBe(true);
      expect(await store.revokePerson('ann')).toBe(false);
      expect(await store.findPersonByTokenHash('h1')).toBeNull();
      await store.addPerson({ name: 'bob', tokenHash: 'h3', by: 'root' });
      expect((await store.listPeople()).map((p) => [p.name, p.revokedAt !== null])).toEqual([
        ['ann', true],
        ['bob', false],
      ]);
      await store.addPerson({ name: 'ann', tokenHash: 'h4', by: 'root' });
      expect((await store.findPersonByTokenHash('h4'))!.name).toBe('ann');
      expect(await store.listPeople()).toHaveLength(2);
    });
  });

  describe('API tokens beside login links', () => {
    const ctx = useStore(adapter);

    it('a token row keeps its kind, shares the names of people, and is revoked and replaced alike', async () => {
      const { store } = ctx;
      await store.addPerson({ name: 'ann', tokenHash: 'h1', by: 'root' });
      await store.addPerson({ name: 'ci', tokenHash: 'h2', by: 'root', kind: 'token' });
      expect((await store.findPersonByTokenHash('h1'))!.kind).toBe('login');
      expect((await store.findPersonByTokenHash('h2'))!.kind).toBe('token');
      // One namespace: "answered by ci" names one holder.
      await expect(store.addPerson({ name: 'ci', tokenHash: 'h3', by: 'root' })).rejects.toThrow(ConflictError);
      await expect(store.addPerson({ name: 'ann', tokenHash: 'h4', by: 'root', kind: 'token' })).rejects.toThrow(
        ConflictError,
      );
      expect((await store.listPeople()).map((p) => [p.name, p.kind])).toEqual([
        ['ann', 'login'],
        ['ci', 'token'],
      ]);
      expect(await store.revokePerson('ci')).toBe(true);
      expect(await store.findPersonByTokenHash('h2')).toBeNull();
      await store.addPerson({ name: 'ci', tokenHash: 'h5', by: 'root', kind: 'token' });
      expect(await store.findPersonByTokenHash('h5')).toMatchObject({ name: 'ci', kind: 'token', revokedAt: null });
    });
  });

  describe('ended web sessions (logout)', () => {
    const ctx = useStore(adapter);

    it('an ended session is ended for every connection, ending it twice is no error, and a record a day past its expiry is dropped', async () => {
      const { store, clock } = ctx;
      const other = await adapter.connect(store, () => clock.t);
      try {
        expect(await store.webSessionEnded('s1')).toBe(false);
        await store.endWebSession('s1', clock.t + 3_600_000);
        await store.endWebSession('s1', clock.t + 3_600_000);
        expect(await other.webSessionEnded('s1')).toBe(true);
        expect(await other.webSessionEnded('s2')).toBe(false);
        // Expired, but within a day of it: still kept (a process whose clock runs behind still refuses it).
        clock.t += 3_600_000 + ENDED_SESSION_KEPT_MS - 1;
        await other.endWebSession('s2', clock.t + 3_600_000);
        expect(await store.webSessionEnded('s1')).toBe(true);
        clock.t += 2;
        await other.endWebSession('s3', clock.t + 3_600_000);
        expect(await store.webSessionEnded('s1')).toBe(false);
        expect(await store.webSessionEnded('s2')).toBe(true);
      } finally {
        await other.close();
      }
    });
  });

  describe('listRuns and countRuns', () => {
    const ctx = useStore(adapter);
    /** n runs: every third waits, every fifth has failed, the rest run on; the clock moves between writes. */
    async function runs(n: number) {
      const { store, clock } = ctx;
      for (let i = 1; i <= n; i++) {
        clock.t += 10;
        const run = await store.createRun(newRun({ spec: `wf${i}` }));
        await store.startExecution(T, exec(run.id, '1'));
        if (i % 3 === 0)
          await store.markWaiting(
            T,
            run.id,
            '1',
            { waitingFor: `question ${i}`, awaiting: 'input', metrics: { costUsd: 0.25, numTurns: 1, durationMs: 1 } },
            'waiting_human',
          );
        else
          await store.completeExecution(
            T,
            run.id,
            '1',
            { status: 'DONE' },
            { costUsd: 0.25, numTurns: 1, durationMs: 1 },
          );
        if (i % 5 === 0) await store.finishRun(T, run.id, ended('failed', 'boom'));
      }
      return (await store.listRuns()).map((r) => r.id).reverse();
    }

    it('newest first, at most `limit`, each with its waiting call and cost', async () => {
      const ids = await runs(12);
      const page = await ctx.store.listRuns({ limit: 4 });
      expect(page.map((r) => r.id)).toEqual(ids.slice(8).reverse());
      expect(page[0].waiting).toMatchObject({ key: '1', waitingFor: 'question 12' });
      expect(page[1].waiting).toBeNull();
      expect(page.every((r) => r.costUsd === 0.25)).toBe(true);
      expect(await ctx.store.listRuns({ limit: 0 })).toHaveLength(12);
      expect((await ctx.store.listOpenRuns()).map((r) => r.id)).toEqual(ids.filter((_, i) => (i + 1) % 5 !== 0));
    });

    it('filters by status and activity, and counts what matches regardless of the limit', async () => {
      const ids = await runs(15);
      const at = (...ns: number[]) => ns.map((n) => ids[n - 1]);
      expect((await ctx.store.listRuns({ status: 'failed' })).map((r) => r.id)).toEqual(at(15, 10, 5));
      expect((await ctx.store.listRuns({ status: 'waiting_human', limit: 2 })).map((r) => r.id)).toEqual(at(12, 9));
      expect(await ctx.store.countRuns({ status: 'waiting_human', limit: 2 })).toBe(4);
      expect(await ctx.store.countRuns({ active: true })).toBe(12);
      expect(await ctx.store.countRuns()).toBe(15);
      expect((await ctx.store.listRuns({ active: true, limit: 3 })).map((r) => r.id)).toEqual(at(14, 13, 12));
      expect(await ctx.store.listRuns({ status: 'stuck' })).toEqual([]);
    });

    it('reads only the runs changed since a time', async () => {
      const ids = await runs(6);
      const last = (await ctx.store.listRuns({ limit: 1 }))[0];
      expect((await ctx.store.listRuns({ changedSince: last.updatedAt - 1 })).map((r) => r.id)).toEqual([ids[5]]);
      expect(await ctx.store.listRuns({ changedSince: last.updatedAt })).toEqual([]);
    });
  });

  describe('migrations', () => {
    const ctx = useStore(adapter);

    it('a fresh store is at SCHEMA_VERSION and empty', async () => {
      expect(await adapter.schemaVersion(ctx.store)).toBe(SCHEMA_VERSION);
      expect(await ctx.store.countRuns()).toBe(0);
      expect(await ctx.store.listPeople()).toEqual([]);
    });
  });
}
