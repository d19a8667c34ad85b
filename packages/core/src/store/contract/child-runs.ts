import { describe, expect, it } from 'vitest';
import type { Store, WorldWait } from '../store.js';
import { ended, eventTypes, exec, newRun, OTHER, owner, T, useStore, type StoreAdapter } from './fixtures.js';

const onRun = (): WorldWait & { runStatus: 'waiting' } => ({
  kind: 'run',
  until: null,
  runStatus: 'waiting',
  event: { type: 'wait_started', key: '1', actor: 'shop', channel: 'engine', data: { kind: 'run' } },
});
const calling = (runId: number) =>
  exec(runId, '1', {
    kind: 'workflow',
    agent: null,
    sessionId: null,
    fingerprint: 'call_workflow("kid")',
    request: { workflow: 'kid' },
    waitOn: onRun(),
    child: newRun({ spec: 'kid', owner: owner(OTHER) }),
  });

/** A parent whose call 1 started a child and waits on it, both recorded in one transaction. */
async function parentAndChild(store: Store) {
  const parent = (await store.createRun(newRun())).id;
  const call = await store.startExecution(T, calling(parent));
  return { parent, child: Number((call.request as { run_id: number }).run_id), call };
}

/** Runs calling runs (call_workflow): a child made with its parent's call, one per call ever, its end found, its stop with its parent's. */
export function childRuns(adapter: StoreAdapter) {
  describe('child runs', () => {
    const ctx = useStore(adapter);

    it("a call that starts a child: the child's row (its parent and the call's key) and the call waiting on it, in one transaction", async () => {
      const { store } = ctx;
      const { parent, child, call } = await parentAndChild(store);
      expect(call).toMatchObject({ status: 'waiting', waitKind: 'run', request: { workflow: 'kid', run_id: child } });
      expect(await store.getRun(child)).toMatchObject({
        spec: 'kid',
        status: 'running',
        parentId: parent,
        parentKey: '1',
        owner: { token: OTHER },
      });
      expect(await store.getRun(parent)).toMatchObject({ status: 'waiting', parentId: null, parentKey: null });
      expect((await store.listChildren(parent)).map((r) => r.id)).toEqual([child]);
      expect(await eventTypes(store, child)).toEqual(['run_started']);
      expect((await store.listEvents(child))[0]).toMatchObject({
        channel: 'engine',
        data: { parent, parent_key: '1' },
      });
      expect((await store.listEvents(parent)).find((e) => e.type === 'wait_started')).toMatchObject({
        data: { kind: 'run', run_id: child },
      });
    });

    it('one child per call, ever: a second start of the call makes no second child; a refused start (another owner) makes none', async () => {
      const { store } = ctx;
      const { parent } = await parentAndChild(store);
      await expect(store.startExecution(T, calling(parent))).rejects.toThrow();
      const other = (await store.createRun(newRun())).id;
      await expect(store.startExecution(OTHER, calling(other))).rejects.toThrow();
      expect((await store.listChildren(parent)).length).toBe(1);
      expect(await store.listChildren(other)).toEqual([]);
      expect(await store.countRuns()).toBe(3);
    });

    it("a child's end is found for its waiting parent (completed, stuck or failed), not before, and no more once the wait ended", async () => {
      const { store } = ctx;
      const { parent, child } = await parentAndChild(store);
      expect(await store.childEndedRuns()).toEqual([]);
      await store.finishRun(OTHER, child, ended('failed', 'boom'));
      expect(await store.childEndedRuns()).toEqual([parent]);
      expect(
        await store.endWait(
          T,
          parent,
          '1',
          { run_id: child, status: 'failed' },
          { type: 'child_ended', key: '1', actor: 'shop', channel: 'engine' },
        ),
      ).toEqual(expect.any(Number));
      expect(
        await store.endWait(T, parent, '1', null, { type: 'child_ended', key: '1', actor: 'shop', channel: 'engine' }),
      ).toBeNull();
      expect(await store.childEndedRuns()).toEqual([]);
    });

    it('a stop of the parent is recorded for its open children (and theirs) in the same transaction, each in its own trail', async () => {
      const { store } = ctx;
      const { parent, child } = await parentAndChild(store);
      const grandchild = Number(
        ((await store.startExecution(OTHER, calling(child))).request as { run_id: number }).run_id,
      );
      await store.requestStop(parent, 'enough', 'ann');
      expect((await store.getRun(child))?.stop).toMatchObject({
        reason: `its parent run ${parent} was stopped: enough`,
        by: 'ann',
      });
      expect((await store.getRun(grandchild))?.stop).toMatchObject({
        reason: `its parent run ${child} was stopped: enough`,
      });
      expect((await store.listEvents(grandchild)).at(-1)).toMatchObject({
        type: 'stop_requested',
        data: { parent: child },
      });
    });
  });
}
