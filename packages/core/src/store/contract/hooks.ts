import { describe, expect, it } from 'vitest';
import { NotFoundError, UsageError } from '../../errors.js';
import type { DeliveryAction, NewHook } from '../hook-store.js';
import type { NewQueuedRun } from '../queue-store.js';
import { newRun, useStore, type StoreAdapter } from './fixtures.js';
import { waitingOnEvent } from './sent-events.js';

const hook = (over: Partial<NewHook> = {}): NewHook => ({
  name: 'issues',
  workflow: 'triage',
  eventName: null,
  keyFrom: 'repository.full_name',
  promptFrom: 'issue.body',
  filter: 'action=labeled',
  github: true,
  secretEnv: null,
  secret: 'shh',
  createdBy: 'ann',
  ...over,
});

const payload = { action: 'labeled', issue: { number: 7 } };
const queueIt = (over: Partial<NewQueuedRun> = {}): DeliveryAction => ({
  kind: 'run',
  run: {
    spec: 'triage',
    workflowPath: '/p/workflows/triage.lua',
    workflowHash: 'abc',
    prompt: 'fix it',
    workspace: '/p',
    branch: null,
    seed: 9,
    actor: 'hook:issues',
    priority: 0,
    queueKey: 'octo/repo',
    concurrency: null,
    trigger: { kind: 'webhook', name: 'issues', by: null, data: payload },
    startId: null,
    ...over,
  },
});
const sendIt = (name = 'pr.merged', key: string | null = null): DeliveryAction => ({
  kind: 'event',
  event: { name, key, data: payload, sentBy: 'hook:merged', channel: 'api', runId: null, sendId: null },
});

export function hooks(adapter: StoreAdapter) {
  describe('webhooks', () => {
    const ctx = useStore(adapter);

    it('a hook is added, read, listed by name and removed; a second of one name is a conflict, nothing changed', async () => {
      const { store } = ctx;
      const added = await store.addHook(hook());
      expect(added).toEqual({ ...hook(), createdAt: 1_000_000 });
      await store.addHook(
        hook({ name: 'merged', workflow: null, eventName: 'pr.merged', secret: null, secretEnv: 'S' }),
      );
      await expect(store.addHook(hook({ workflow: 'other' }))).rejects.toBeInstanceOf(UsageError);
      expect(await store.getHook('issues')).toEqual(added);
      expect((await store.listHooks()).map((h) => [h.name, h.workflow, h.eventName, h.secretEnv])).toEqual([
        ['issues', 'triage', null, null],
        ['merged', null, 'pr.merged', 'S'],
      ]);
      expect(await store.removeHook('issues')).toBe(true);
      expect(await store.removeHook('issues')).toBe(false);
      expect(await store.getHook('issues')).toBeNull();
    });

    it('a delivery queues its run (trigger webhook, its payload) once; the same delivery again is a duplicate, nothing new', async () => {
      const { store, clock } = ctx;
      await store.addHook(hook());
      const first = await store.recordDelivery({ hook: 'issues', delivery: 'guid-1', action: queueIt() });
      if (first.duplicate || first.outcome !== 'run') throw new Error('expected a queued run');
      expect(first.run).toMatchObject({ status: 'queued', queueKey: 'octo/repo', prompt: 'fix it' });
      expect(first.run.trigger).toEqual({ kind: 'webhook', name: 'issues', by: null, data: payload });
      clock.t += 5000;
      const again = await store.recordDelivery({ hook: 'issues', delivery: 'guid-1', action: queueIt() });
      expect(again).toEqual({ duplicate: true, outcome: 'run', runId: first.run.id, receivedAt: 1_000_000 });
      expect(await store.countRuns()).toBe(1);
      const other = await store.recordDelivery({ hook: 'issues', delivery: 'guid-2', action: queueIt() });
      expect(other).toMatchObject({ duplicate: false, outcome: 'run' });
      expect(await store.countRuns()).toBe(2);
    });

    it('a delivery sends its event to the runs waiting on it; a redelivery sends none', async () => {
      const { store } = ctx;
      await store.addHook(hook({ name: 'merged', workflow: null, eventName: 'pr.merged' }));
      const run = await store.createRun(newRun());
      await waitingOnEvent(store, run.id, '1', 'pr.merged', 'octo:repo');
      const first = await store.recordDelivery({
        hook: 'merged',
        delivery: 'd',
        action: sendIt('pr.merged', 'octo:repo'),
      });
      if (first.duplicate || first.outcome !== 'event') throw new Error('expected an event');
      expect(first.sent.waiting).toEqual([run.id]);
      expect(first.sent.event).toMatchObject({
        name: 'pr.merged',
        key: 'octo:repo',
        data: payload,
        sentBy: 'hook:merged',
      });
      const again = await store.recordDelivery({
        hook: 'merged',
        delivery: 'd',
        action: sendIt('pr.merged', 'octo:repo'),
      });
      expect(again).toMatchObject({ duplicate: true, outcome: 'event', runId: null });
      expect(await store.listSentEvents()).toHaveLength(1);
    });

    it('a filtered delivery is recorded (its redelivery a duplicate) and does nothing else; ids are per hook', async () => {
      const { store } = ctx;
      await store.addHook(hook());
      await store.addHook(hook({ name: 'other' }));
      expect(await store.recordDelivery({ hook: 'issues', delivery: 'x', action: { kind: 'filtered' } })).toEqual({
        duplicate: false,
        outcome: 'filtered',
      });
      expect(await store.recordDelivery({ hook: 'issues', delivery: 'x', action: queueIt() })).toMatchObject({
        duplicate: true,
        outcome: 'filtered',
        runId: null,
      });
      expect(await store.countRuns()).toBe(0);
      expect(await store.recordDelivery({ hook: 'other', delivery: 'x', action: queueIt() })).toMatchObject({
        duplicate: false,
        outcome: 'run',
      });
    });

    it('a delivery to a hook removed is NotFoundError, nothing recorded; removing forgets its deliveries', async () => {
      const { store } = ctx;
      await store.addHook(hook());
      await store.recordDelivery({ hook: 'issues', delivery: 'x', action: { kind: 'filtered' } });
      await store.removeHook('issues');
      await expect(store.recordDelivery({ hook: 'issues', delivery: 'y', action: queueIt() })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      expect(await store.countRuns()).toBe(0);
      await store.addHook(hook());
      expect(await store.recordDelivery({ hook: 'issues', delivery: 'x', action: queueIt() })).toMatchObject({
        duplicate: false,
      });
    });

    it('a delivery and its run commit together: a failing run event leaves no delivery, so a retry is not a duplicate', async () => {
      const { store } = ctx;
      await store.addHook(hook());
      const undo = await adapter.failEvents(store, 'run_started');
      await expect(store.recordDelivery({ hook: 'issues', delivery: 'x', action: queueIt() })).rejects.toThrow();
      expect(await store.countRuns()).toBe(0);
      await undo();
      expect(await store.recordDelivery({ hook: 'issues', delivery: 'x', action: queueIt() })).toMatchObject({
        duplicate: false,
        outcome: 'run',
      });
    });

    it('racing redeliveries of one delivery, on several connections: one run, the rest duplicates naming it', async () => {
      const { store } = ctx;
      await store.addHook(hook());
      const conns = await Promise.all(Array.from({ length: 6 }, () => adapter.connect(store, () => ctx.clock.t)));
      const results = await Promise.all(
        conns.map((c) => c.recordDelivery({ hook: 'issues', delivery: 'same', action: queueIt() })),
      );
      await Promise.all(conns.map((c) => c.close()));
      const fresh = results.filter((r) => !r.duplicate);
      expect(fresh).toHaveLength(1);
      const runId = fresh[0]!.outcome === 'run' ? fresh[0]!.run.id : -1;
      expect(results.filter((r) => r.duplicate).map((r) => (r.duplicate ? r.runId : 0))).toEqual(Array(5).fill(runId));
      expect(await store.countRuns()).toBe(1);
    });
  });
}
