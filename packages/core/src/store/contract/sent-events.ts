import { describe, expect, it } from 'vitest';
import { ConflictError, LostOwnershipError, NotFoundError } from '../../errors.js';
import type { NewSentEvent } from '../sent-event-store.js';
import type { Store } from '../store.js';
import { ended, eventTypes, exec, newRun, OTHER, owner, T, useStore, type StoreAdapter } from './fixtures.js';

/** A run's call `key` waiting on an event (as wait_event records it), due at `until` (null: no timeout). */
export async function waitingOnEvent(
  store: Store,
  runId: number,
  key: string,
  name: string,
  eventKey: string | null = null,
  until: number | null = null,
  token = T,
) {
  const event = { type: 'wait_started', key, actor: 'shop', channel: 'engine' as const, data: { kind: 'event', name } };
  await store.startExecution(
    token,
    exec(runId, key, {
      kind: 'wait_event',
      agent: null,
      sessionId: null,
      fingerprint: `wait_event("${name}")`,
      request: { type: 'wait_event', name, key: eventKey, timeout: null, due_at: until },
      waitOn: { kind: 'event', until, event, runStatus: 'waiting' },
    }),
  );
}

const sent = (over: Partial<NewSentEvent> = {}): NewSentEvent => ({
  name: 'ci.finished',
  key: null,
  data: null,
  sentBy: 'ann',
  channel: 'cli',
  runId: null,
  sendId: null,
  ...over,
});
const take = (runId: number, callKey: string, name = 'ci.finished', key: string | null = null) => ({
  runId,
  callKey,
  name,
  key,
});

export function sentEvents(adapter: StoreAdapter) {
  describe('sent events: never lost, taken once per run', () => {
    const ctx = useStore(adapter);

    it('an event sent after the run started but before its wait is taken (never lost); one sent before the run started is not', async () => {
      const { store, clock } = ctx;
      const before = (await store.sendEvent(sent({ data: { n: 0 } }))).event;
      clock.t += 10;
      const run = await store.createRun(newRun());
      clock.t += 10;
      const early = (await store.sendEvent(sent({ data: { n: 1, nested: ['a', { b: null }] }, key: 'pr-42' }))).event;
      expect(early).toEqual({
        id: early.id,
        name: 'ci.finished',
        key: 'pr-42',
        data: { n: 1, nested: ['a', { b: null }] },
        sentAt: clock.t,
        sentBy: 'ann',
        channel: 'cli',
        runId: null,
        sendId: null,
      });
      expect(early.id).toBeGreaterThan(before.id);
      clock.t += 1_000;
      expect(await store.takeEvent(T, take(run.id, '3'))).toEqual(early);
      expect(await store.takeEvent(T, take(run.id, '4'))).toBeNull();
      expect((await store.listEvents(run.id)).filter((e) => e.type === 'event_taken')).toMatchObject([
        {
          key: '3',
          actor: 'ann',
          data: { event_id: early.id, name: 'ci.finished', event_key: 'pr-42', channel: 'cli' },
        },
      ]);
    });

    it('two takes take two events in order; a take again under its call key returns the same event (replay)', async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun());
      const first = (await store.sendEvent(sent({ data: 'first' }))).event;
      clock.t += 1;
      const second = (await store.sendEvent(sent({ data: 'second' }))).event;
      expect((await store.takeEvent(T, take(run.id, '1')))!.data).toBe('first');
      expect((await store.takeEvent(T, take(run.id, '2')))!.data).toBe('second');
      expect(await store.takeEvent(T, take(run.id, '1'))).toEqual(first);
      expect(await store.takeEvent(T, take(run.id, '2'))).toEqual(second);
      expect(await store.takeEvent(T, take(run.id, '3'))).toBeNull();
      expect((await eventTypes(store, run.id)).filter((t) => t === 'event_taken')).toHaveLength(2);
    });

    it('a take is exclusive per run, but two runs both take the same event (broadcast); names and keys narrow it', async () => {
      const { store } = ctx;
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun({ owner: owner(OTHER) }));
      const deploy = (await store.sendEvent(sent({ name: 'deploy.done', key: 'prod' }))).event;
      expect(await store.takeEvent(T, take(a.id, '1', 'deploy.done', 'staging'))).toBeNull();
      expect(await store.takeEvent(T, take(a.id, '1', 'ci.finished'))).toBeNull();
      expect(await store.takeEvent(T, take(a.id, '1', 'deploy.done', 'prod'))).toEqual(deploy);
      expect(await store.takeEvent(T, take(a.id, '2', 'deploy.done'))).toBeNull();
      expect(await store.takeEvent(OTHER, take(b.id, '1', 'deploy.done'))).toEqual(deploy);
    });

    it('an event sent to a run is taken by that run alone; an unknown run is NotFound and an ended one a conflict, nothing recorded', async () => {
      const { store } = ctx;
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun({ owner: owner(OTHER) }));
      const toB = (await store.sendEvent(sent({ runId: b.id }))).event;
      expect(toB.runId).toBe(b.id);
      expect(await store.takeEvent(T, take(a.id, '1'))).toBeNull();
      expect(await store.takeEvent(OTHER, take(b.id, '1'))).toEqual(toB);
      await expect(store.sendEvent(sent({ runId: 999 }))).rejects.toThrow(NotFoundError);
      await store.finishRun(T, a.id, ended('failed', 'broke'));
      const refused = store.sendEvent(sent({ runId: a.id }));
      await expect(refused).rejects.toThrow(ConflictError);
      await expect(refused).rejects.toThrow(`run ${a.id} has ended (failed: broke)`);
      expect(await store.listSentEvents()).toEqual([toB]);
    });

    it('the same sender id twice records one event and returns the first, said to be a duplicate', async () => {
      const { store, clock } = ctx;
      const first = await store.sendEvent(sent({ sendId: 'gh-delivery-1', data: { run: 1 } }));
      expect(first.duplicate).toBe(false);
      clock.t += 5;
      const again = await store.sendEvent(sent({ sendId: 'gh-delivery-1', data: { run: 2 }, name: 'other' }));
      expect(again).toEqual({ event: first.event, duplicate: true, waiting: [] });
      expect(await store.listSentEvents()).toEqual([first.event]);
    });

    it('racing senders with one id: exactly one event recorded, every sender gets it', async () => {
      const { store } = ctx;
      const conns = await Promise.all(Array.from({ length: 6 }, () => adapter.connect(store, () => ctx.clock.t)));
      const results = await Promise.all(
        conns.map((c, i) => c.sendEvent(sent({ sendId: 'once', sentBy: `sender-${i}` }))),
      );
      await Promise.all(conns.map((c) => c.close()));
      expect(results.filter((r) => !r.duplicate)).toHaveLength(1);
      expect(new Set(results.map((r) => r.event.id)).size).toBe(1);
      expect(await store.listSentEvents()).toHaveLength(1);
    });

    it('racing takers of one run: each event is taken once (by one call); of two runs, each run takes it', async () => {
      const { store } = ctx;
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun());
      const events = [];
      for (let i = 0; i < 3; i++) events.push((await store.sendEvent(sent({ data: i }))).event.id);
      const conns = await Promise.all(Array.from({ length: 8 }, () => adapter.connect(store, () => ctx.clock.t)));
      const got = await Promise.all(conns.map((c, i) => c.takeEvent(T, take(i % 2 ? b.id : a.id, String(i + 1)))));
      await Promise.all(conns.map((c) => c.close()));
      for (const runId of [a.id, b.id]) {
        const taken = got.filter((e, i) => e !== null && (i % 2 ? b.id : a.id) === runId).map((e) => e!.id);
        expect(taken.sort((x, y) => x - y)).toEqual(events);
      }
      expect(got.filter((e) => e === null)).toHaveLength(2);
    });

    it("a take is fenced by the run's owner token: another token takes nothing and records nothing", async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      const e = (await store.sendEvent(sent())).event;
      await expect(store.takeEvent(OTHER, take(run.id, '1'))).rejects.toThrow(LostOwnershipError);
      await expect(store.takeEvent(T, take(999, '1'))).rejects.toThrow(NotFoundError);
      expect(await eventTypes(store, run.id)).not.toContain('event_taken');
      expect(await store.takeEvent(T, take(run.id, '1'))).toEqual(e);
    });

    it('listSentEvents: newest first, by name, by run (sent to it or taken by it), at most limit', async () => {
      const { store, clock } = ctx;
      const run = await store.createRun(newRun());
      const ids: number[] = [];
      for (const name of ['a', 'b', 'a', 'c']) {
        clock.t += 1;
        ids.push((await store.sendEvent(sent({ name, runId: name === 'c' ? run.id : null }))).event.id);
      }
      await store.takeEvent(T, take(run.id, '1', 'b'));
      expect((await store.listSentEvents()).map((e) => e.id)).toEqual([...ids].reverse());
      expect((await store.listSentEvents({ name: 'a' })).map((e) => e.id)).toEqual([ids[2], ids[0]]);
      expect((await store.listSentEvents({ runId: run.id })).map((e) => e.id)).toEqual([ids[3], ids[1]]);
      expect((await store.listSentEvents({ limit: 2 })).map((e) => e.id)).toEqual([ids[3], ids[2]]);
    });

    it('pruning a run deletes its takes and the events sent to it alone; events sent to everyone stay', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      const everyone = (await store.sendEvent(sent())).event;
      await store.sendEvent(sent({ name: 'mine', runId: run.id }));
      await store.takeEvent(T, take(run.id, '1', 'mine'));
      await store.takeEvent(T, take(run.id, '2'));
      await store.finishRun(T, run.id, ended());
      await store.releaseRun(run.id, T, { ifIdle: false });
      expect(await store.deleteRun(run.id)).toBe('deleted');
      expect(await store.listSentEvents()).toEqual([everyone]);
    });
    it('a send names the runs with a call waiting on it (name, key, target), to be woken; a duplicate names none', async () => {
      const { store } = ctx;
      const a = await store.createRun(newRun());
      const b = await store.createRun(newRun({ owner: owner(OTHER) }));
      await waitingOnEvent(store, a.id, '1', 'ci.finished');
      await waitingOnEvent(store, a.id, '2', 'ci.finished', 'pr-1');
      await waitingOnEvent(store, b.id, '1', 'ci.finished', 'pr-2', null, OTHER);
      expect((await store.sendEvent(sent({ key: 'pr-2', sendId: 'x' }))).waiting).toEqual([a.id, b.id]);
      expect((await store.sendEvent(sent({ key: 'pr-2', sendId: 'x' }))).waiting).toEqual([]);
      expect((await store.sendEvent(sent({ key: 'pr-1' }))).waiting).toEqual([a.id]);
      expect((await store.sendEvent(sent({ key: 'pr-2', runId: b.id }))).waiting).toEqual([b.id]);
      expect((await store.sendEvent(sent({ name: 'deploy.done' }))).waiting).toEqual([]);
    });

    it('endEventWait: the waiting call takes its event and completes with it in one go, once; eventReadyRuns finds runs that can take one', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await waitingOnEvent(store, run.id, '1', 'ci.finished', null, 5_000_000);
      const take = { runId: run.id, callKey: '1', name: 'ci.finished', key: null };
      expect(await store.eventReadyRuns()).toEqual([]);
      expect(await store.endEventWait(T, take, (e) => ({ got: e.id }))).toBeNull();
      expect((await store.getExecution(run.id, '1'))!.status).toBe('waiting');
      const e = (await store.sendEvent(sent({ data: 'go' }))).event;
      expect(await store.eventReadyRuns()).toEqual([run.id]);
      await expect(store.endEventWait(OTHER, take, () => null)).rejects.toThrow(LostOwnershipError);
      const ended = await store.endEventWait(T, take, (x) => ({ got: x.id }));
      expect(ended).toEqual({ event: e, delivered: 1 });
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        status: 'completed',
        result: { got: e.id },
        delivered: 1,
      });
      // Its timeout's wake timer went with the wait.
      expect(await store.nextTimer([run.id])).toBeNull();
      expect(await store.eventReadyRuns()).toEqual([]);
      expect(await store.endEventWait(T, take, () => null)).toBeNull();
      expect(
        (await eventTypes(store, run.id)).filter((t) =>
          ['wait_started', 'event_taken', 'execution_finished'].includes(t),
        ),
      ).toEqual(['wait_started', 'event_taken', 'execution_finished']);
    });
  });
}
