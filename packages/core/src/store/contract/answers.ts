import { describe, expect, it } from 'vitest';
import { ConflictError, SessionHeldError } from '../../errors.js';
import { answerBy, eventTypes, exec, newRun, pause, T, useStore, waitingRun, type StoreAdapter } from './fixtures.js';

export function answersAndHolds(adapter: StoreAdapter) {
  describe('answers: first answer wins', () => {
    const ctx = useStore(adapter);

    it('a second answer is a ConflictError naming the first responder; one answer, one event', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, pause(run.id, '1'));
      const first = await store.recordAnswer(answerBy(run.id, '1', 'CONTINUE'));
      expect(first).toMatchObject({ status: 'CONTINUE', responder: 'ann', owner: { token: T } });
      const second = store.recordAnswer(answerBy(run.id, '1', 'STOP', 'bob'));
      await expect(second).rejects.toThrow(ConflictError);
      await expect(second).rejects.toThrow(/already answered CONTINUE by ann \(cli\) at /);
      expect(await store.getAnswer(run.id, '1', 1)).toMatchObject({
        status: 'CONTINUE',
        responder: 'ann',
        channel: 'cli',
      });
      expect(await store.listAnswers(run.id)).toHaveLength(1);
      expect((await eventTypes(store, run.id)).filter((t) => t === 'human_answered')).toHaveLength(1);
    });

    it('racing callers: of many concurrent answers to one ask exactly one wins, the rest name it', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      const people = Array.from({ length: 12 }, (_, i) => `person-${i}`);
      // Each caller on its own connection, as separate processes would be.
      const conns = await Promise.all(people.map(() => adapter.connect(store, () => ctx.clock.t)));
      const results = await Promise.allSettled(
        people.map((p, i) => conns[i].recordAnswer(answerBy(id, '1', `S-${p}`, p))),
      );
      await Promise.all(conns.map((c) => c.close()));
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      const winner = (won[0] as PromiseFulfilledResult<{ responder: string }>).value.responder;
      for (const r of results.filter((x) => x.status === 'rejected')) {
        const reason = (r as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(ConflictError);
        expect(String(reason.message)).toContain(`by ${winner} (cli)`);
      }
      expect(await store.getAnswer(id, '1', 1)).toMatchObject({ responder: winner });
      expect((await eventTypes(store, id)).filter((t) => t === 'human_answered')).toHaveLength(1);
    });

    it('an answer to an ask the call no longer waits on is a ConflictError and writes nothing', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await expect(store.recordAnswer(answerBy(id, '1', 'X', 'ann', 2))).rejects.toThrow(ConflictError);
      await expect(store.recordAnswer(answerBy(id, '9', 'X'))).rejects.toThrow(ConflictError);
      await store.completeExecution(T, id, '1', 'done');
      await expect(store.recordAnswer(answerBy(id, '1', 'X'))).rejects.toThrow(ConflictError);
      expect(await store.listAnswers(id)).toEqual([]);
    });

    it('an answer recorded waits to be taken in: answeredRuns names the run, release-if-idle keeps it', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      expect(await store.answeredRuns()).toEqual([]);
      await store.recordAnswer(answerBy(id, '1', 'DONE'));
      expect(await store.answeredRuns()).toEqual([id]);
      expect(await store.releaseRun(id, T, { ifIdle: true })).toBe('answered');
      expect((await store.getRun(id))!.owner?.token).toBe(T);
      await store.completeExecution(T, id, '1', { status: 'DONE' });
      expect(await store.answeredRuns()).toEqual([]);
      expect(await store.releaseRun(id, T, { ifIdle: true })).toBe('released');
    });

    it('a second ask of the same call takes its own first answer', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await store.recordAnswer(answerBy(id, '1', 'A1'));
      await store.markWaiting(T, id, '1', { waitingFor: 'And the port?', awaiting: 'input' }, 'waiting_human');
      expect((await store.recordAnswer(answerBy(id, '1', 'A2', 'bob', 2))).status).toBe('A2');
      expect((await store.listAnswers(id)).map((a) => [a.ask, a.status])).toEqual([
        [1, 'A1'],
        [2, 'A2'],
      ]);
    });
  });

  describe('session holds', () => {
    const ctx = useStore(adapter);
    const person = (token: string, by = 'ann') => ({ token, by, host: 'h', pid: 4242, pidStart: '77' });

    it("a person's hold refuses answers, restarts and a second hold; only its token releases it", async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
      expect(await store.getExecution(id, '1')).toMatchObject({ hold: { kind: 'continue', by: 'ann', pid: 4242 } });
      await expect(store.recordAnswer(answerBy(id, '1', 'X', 'bob'))).rejects.toThrow(
        new RegExp(
          `^run ${id} call 1: ann is in coder's session \\(shop continue, process 4242 on h\\) since .+; answer there`,
        ),
      );
      await expect(store.restartExecution(T, id, '1')).rejects.toThrow(SessionHeldError);
      await expect(store.holdSession(id, '1', person('p2', 'bob'), { ask: 1, staleHold: null })).rejects.toThrow(
        SessionHeldError,
      );
      await store.releaseSession(id, '1', 'p2');
      await expect(store.recordAnswer(answerBy(id, '1', 'X', 'bob'))).rejects.toThrow(SessionHeldError);
      await store.releaseSession(id, '1', 'p1');
      expect((await store.recordAnswer(answerBy(id, '1', 'X', 'bob'))).responder).toBe('bob');
      expect(await eventTypes(store, id)).toEqual(
        expect.arrayContaining(['session_opened', 'session_closed', 'human_answered']),
      );
    });

    it('a hold judged dead is cleared with the answer; a wrong stale token clears nothing', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
      await expect(store.recordAnswer(answerBy(id, '1', 'X', 'bob'), 'other')).rejects.toThrow(SessionHeldError);
      await store.recordAnswer(answerBy(id, '1', 'X', 'bob'), 'p1');
      expect(await store.getExecution(id, '1')).toMatchObject({ hold: null });
      expect((await store.listEvents(id)).find((e) => e.type === 'session_closed')?.data).toEqual({
        why: 'its shop continue process is gone',
      });
    });

    it('no hold on an answered ask (ConflictError naming who), nor on one not waiting', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await expect(store.holdSession(id, '1', person('p1'), { ask: 2, staleHold: null })).rejects.toThrow(
        ConflictError,
      );
      await store.recordAnswer(answerBy(id, '1', 'X', 'bob'));
      const held = store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
      await expect(held).rejects.toThrow(ConflictError);
      await expect(held).rejects.toThrow(/already answered.*bob/);
      expect((await store.getExecution(id, '1'))!.hold).toBeNull();
    });

    it("an agent step holds its session while it works (with the agent's pid), and lets go when it waits", async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun({ owner: { token: T, host: 'box', pid: 1, pidStart: '1' } }));
      const e = await store.startExecution(T, exec(run.id, '1'));
      expect(e).toMatchObject({
        spawned: false,
        hold: { kind: 'agent', token: T, by: 'coder', host: 'box', pid: null },
      });
      await store.setExecutionPid(T, run.id, '1', 555, '9');
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        spawned: true,
        pid: 555,
        hold: { kind: 'agent', pid: 555, pidStart: '9' },
      });
      await store.markWaiting(T, run.id, '1', { waitingFor: 'q', awaiting: 'input' }, 'waiting_human');
      expect(await store.getExecution(run.id, '1')).toMatchObject({ spawned: true, hold: null });
    });

    it("an agent's pid and its audit event are one write: both recorded, in order after the call's start", async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const data = { pid: 777, containment: 'pid-namespace' };
      await store.setExecutionPid(T, run.id, '1', 777, '3', {
        type: 'agent_started',
        key: '1',
        actor: 'shop',
        channel: 'engine',
        data,
      });
      expect(await store.getExecution(run.id, '1')).toMatchObject({ spawned: true, pid: 777 });
      const events = await store.listEvents(run.id);
      expect(events.map((e) => e.type)).toEqual(['run_started', 'execution_started', 'agent_started']);
      expect(events.at(-1)).toMatchObject({ id: 3, key: '1', actor: 'shop', channel: 'engine', data });
    });

    it('a person in the session keeps the hold when the agent reports from it (the call asks again)', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      await store.holdSession(id, '1', person('p1'), { ask: 1, staleHold: null });
      await store.markWaiting(T, id, '1', { waitingFor: 'And the port?', awaiting: 'input' }, 'waiting_human');
      expect(await store.getExecution(id, '1')).toMatchObject({ ask: 2, hold: { kind: 'continue', token: 'p1' } });
      await expect(store.recordAnswer(answerBy(id, '1', 'X', 'bob', 2))).rejects.toThrow(SessionHeldError);
    });

    it('racing shop continue: of many holds on one ask exactly one is taken', async () => {
      const { store } = ctx;
      const id = await waitingRun(store);
      const results = await Promise.allSettled(
        Array.from({ length: 6 }, (_, i) => store.holdSession(id, '1', person(`p${i}`), { ask: 1, staleHold: null })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      for (const r of results) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(SessionHeldError);
    });
  });
}
