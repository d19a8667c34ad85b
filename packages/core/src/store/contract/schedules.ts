import { describe, expect, it } from 'vitest';
import type { NewSchedule, SlotDecision } from '../schedule-store.js';
import { LONG, owner, useStore, type StoreAdapter } from './fixtures.js';
import { queued } from './queue.js';

const nightly = (over: Partial<NewSchedule> = {}): NewSchedule => ({
  name: 'nightly',
  workflow: 'deploy',
  cron: '0 2 * * *',
  tz: 'Europe/Berlin',
  prompt: 'ship it',
  queueKey: null,
  priority: 0,
  overlap: 'skip',
  catchUp: 'latest',
  createdBy: 'ann',
  ...over,
});

const HOUR = 3_600_000;

const decision = (over: Partial<SlotDecision> = {}): SlotDecision => ({
  schedule: 'nightly',
  after: null,
  fire: [2 * HOUR],
  missed: [],
  through: 2 * HOUR,
  overlap: 'skip',
  run: queued({ trigger: { kind: 'schedule', name: 'nightly', by: 'ann', data: null }, actor: 'schedule:nightly' }),
  slotData: (slotAt) => ({ slot: new Date(slotAt).toISOString() }),
  eventData: {},
  by: 'w1',
  ...over,
});

export function schedules(adapter: StoreAdapter) {
  describe('schedules', () => {
    const ctx = useStore(adapter);

    it('adds, lists, pauses, resumes (the paused time not due) and removes a schedule; a name taken is refused', async () => {
      const { store, clock } = ctx;
      expect(await store.addSchedule(nightly({ queueKey: 'prod', priority: 3, overlap: 'queue' }))).toEqual({
        ...nightly({ queueKey: 'prod', priority: 3, overlap: 'queue' }),
        pausedAt: null,
        createdAt: clock.t,
        lastSlot: null,
      });
      expect(await store.addSchedule(nightly({ workflow: 'other' }))).toBeNull();
      await store.addSchedule(nightly({ name: 'a-first' }));
      expect((await store.listSchedules()).map((s) => s.name)).toEqual(['a-first', 'nightly']);
      clock.t += 1000;
      expect(await store.setSchedulePaused('nightly', true)).toMatchObject({ pausedAt: clock.t, lastSlot: null });
      clock.t += 1000;
      expect(await store.setSchedulePaused('nightly', true)).toMatchObject({ pausedAt: clock.t - 1000 });
      // Paused: no decision is written.
      expect(await store.decideSlots(decision({ through: clock.t - 500, fire: [clock.t - 500] }))).toBeNull();
      clock.t += 1000;
      expect(await store.setSchedulePaused('nightly', false)).toMatchObject({ pausedAt: null, lastSlot: clock.t });
      expect(await store.setSchedulePaused('none', false)).toBeNull();
      expect(await store.removeSchedule('nightly')).toBe(true);
      expect(await store.removeSchedule('nightly')).toBe(false);
      expect(await store.getSchedule('nightly')).toBeNull();
    });

    it('a decision records each slot, queues the fired run with its trigger and first event, and moves last_slot', async () => {
      const { store } = ctx;
      await store.addSchedule(nightly());
      const d = await store.decideSlots(decision({ fire: [3 * HOUR], missed: [HOUR, 2 * HOUR], through: 3 * HOUR }));
      expect(d!.skipped).toEqual([
        { slotAt: HOUR, outcome: 'skipped_missed' },
        { slotAt: 2 * HOUR, outcome: 'skipped_missed' },
      ]);
      const run = d!.fired[0]!.run;
      expect(run).toMatchObject({ status: 'queued', trigger: { kind: 'schedule', name: 'nightly', by: 'ann' } });
      expect(run.trigger!.data).toEqual({ slot: new Date(3 * HOUR).toISOString() });
      expect((await store.listEvents(run.id))[0]).toMatchObject({
        type: 'run_started',
        actor: 'schedule:nightly',
        data: { queued: true, schedule: 'nightly', slot: new Date(3 * HOUR).toISOString() },
      });
      expect((await store.listSlots('nightly', 10)).map((s) => [s.slotAt, s.outcome, s.runId, s.decidedBy])).toEqual([
        [3 * HOUR, 'fired', run.id, 'w1'],
        [2 * HOUR, 'skipped_missed', null, 'w1'],
        [HOUR, 'skipped_missed', null, 'w1'],
      ]);
      expect((await store.getSchedule('nightly'))!.lastSlot).toBe(3 * HOUR);
      // Decided from a stale last_slot: nothing written.
      expect(await store.decideSlots(decision({ after: null, fire: [4 * HOUR], through: 4 * HOUR }))).toBeNull();
      expect(await store.countRuns()).toBe(1);
    });

    it('overlap skip records the slot skipped while its previous run is active; queue and allow queue anyway (queue one at a time)', async () => {
      const { store } = ctx;
      await store.addSchedule(nightly());
      const first = (await store.decideSlots(decision()))!.fired[0]!.run;
      const second = await store.decideSlots(decision({ after: 2 * HOUR, fire: [3 * HOUR], through: 3 * HOUR }));
      expect(second).toEqual({ fired: [], skipped: [{ slotAt: 3 * HOUR, outcome: 'skipped_overlap' }] });
      // Taken and waiting for a person: still active.
      await store.claimQueuedRuns(owner('w'), LONG, 1);
      await store.setRunStatus('w', first.id, 'waiting_human', { type: 'waiting', actor: 'shop', channel: 'engine' });
      const next = decision({ after: 3 * HOUR, fire: [4 * HOUR, 5 * HOUR], through: 5 * HOUR, overlap: 'queue' });
      const queuedBehind = (await store.decideSlots(next))!.fired.map((f) => f.run);
      expect(queuedBehind.map((r) => r.concurrency)).toEqual([1, 1]);
      const allowed = await store.decideSlots(
        decision({ after: 5 * HOUR, fire: [6 * HOUR], through: 6 * HOUR, overlap: 'allow' }),
      );
      expect(allowed!.fired[0]!.run.concurrency).toBeNull();
      await store.finishRun('w', first.id, {
        status: 'completed',
        result: null,
        event: { type: 'completed', actor: 'shop', channel: 'engine' },
      });
      expect((await store.listSlots('nightly', 10)).map((s) => s.outcome)).toEqual([
        'fired',
        'fired',
        'fired',
        'skipped_overlap',
        'fired',
      ]);
    });

    it('racing workers on several connections deciding the same slots: exactly one run per slot', async () => {
      const { store, clock } = ctx;
      await store.addSchedule(nightly());
      const conns = [store, await adapter.connect(store, () => clock.t), await adapter.connect(store, () => clock.t)];
      try {
        const slots = [HOUR, 2 * HOUR, 3 * HOUR];
        const results = await Promise.all(
          conns.flatMap((c, i) =>
            [0, 1].map((j) =>
              c.decideSlots(decision({ fire: slots, through: 3 * HOUR, overlap: 'allow', by: `w${i}-${j}` })),
            ),
          ),
        );
        expect(results.filter((r) => r !== null)).toHaveLength(1);
        expect(await store.countRuns()).toBe(3);
        expect((await store.listSlots('nightly', 10)).map((s) => s.slotAt)).toEqual([3 * HOUR, 2 * HOUR, HOUR]);
      } finally {
        for (const c of conns.slice(1)) await c.close();
      }
    });
  });
}
