import { describe, expect, it } from 'vitest';
import { ConflictError } from '../../errors.js';
import { answerBy, ended, eventTypes, exec, newRun, pause, T, useStore, type StoreAdapter } from './fixtures.js';

export function executionsAndFinishing(adapter: StoreAdapter) {
  describe('executions, waiting and finishing', () => {
    const ctx = useStore(adapter);

    it('calls come back in the order first made, not by key; a restart counts an attempt', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      for (const key of ['2', '10', '1', '4/2/1']) await store.startExecution(T, exec(run.id, key));
      await store.restartExecution(T, run.id, '2');
      const all = await store.loadExecutions(run.id);
      expect(all.map((e) => [e.key, e.seq])).toEqual([
        ['2', 1],
        ['10', 2],
        ['1', 3],
        ['4/2/1', 4],
      ]);
      expect(all[0]).toMatchObject({ attempts: 2, sessionId: 's-2', status: 'running' });
      expect((await store.loadExecutions(run.id, 2)).map((e) => e.key)).toEqual(['1', '4/2/1']);
      expect(await store.getExecution(run.id, '10')).toMatchObject({ key: '10', kind: 'run', agent: 'coder' });
      expect(await store.getExecution(run.id, 'nope')).toBeNull();
    });

    it('a call whose agent CLI names its own session (Codex) starts without one and records it once named', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1', { sessionId: null }));
      expect(await store.getExecution(run.id, '1')).toMatchObject({ sessionId: null, status: 'running' });
      await store.setSessionId(T, run.id, '1', '01a20c1f-6155-70c0-97ea-763245366d7d');
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        sessionId: '01a20c1f-6155-70c0-97ea-763245366d7d',
        status: 'running',
      });
    });

    it('an ask records the decisions it asks for, when it names its own; the next ask without any clears them', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const decisions = [
        {
          id: 'q1',
          type: 'choice' as const,
          prompt: 'Which database?',
          required: true,
          options: [{ value: 'SQLite', label: 'SQLite', description: undefined }],
        },
      ];
      await store.markWaiting(
        T,
        run.id,
        '1',
        { waitingFor: 'Which database?', awaiting: 'input', decisions },
        'waiting_human',
      );
      expect((await store.getExecution(run.id, '1'))?.askDecisions).toEqual([
        {
          id: 'q1',
          type: 'choice',
          prompt: 'Which database?',
          required: true,
          options: [{ value: 'SQLite', label: 'SQLite' }],
        },
      ]);
      await store.restartExecution(T, run.id, '1');
      await store.markWaiting(T, run.id, '1', { waitingFor: 'Deploy?', awaiting: 'approval' }, 'waiting_human');
      expect((await store.getExecution(run.id, '1'))?.askDecisions).toBeNull();
    });

    it('waiting moves call and run together; completing numbers deliveries and the run goes on', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      const w = await store.markWaiting(
        T,
        run.id,
        '1',
        { waitingFor: 'which db?', awaiting: 'input', metrics: { costUsd: 0.5, numTurns: 2, durationMs: 10 } },
        'waiting_human',
      );
      expect(w).toMatchObject({ status: 'waiting_human', ask: 1, waitingFor: 'which db?' });
      expect((await store.getRun(run.id))!.status).toBe('waiting_human');
      expect((await store.listWaiting()).map((x) => [x.run.id, x.execution.key])).toEqual([[run.id, '1']]);
      expect(await store.completeExecution(T, run.id, '1', { status: 'DONE' })).toBe(1);
      expect((await store.getRun(run.id))!.status).toBe('running');
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        status: 'completed',
        result: { status: 'DONE' },
        costUsd: 0.5,
        delivered: 1,
      });
      await store.startExecution(T, exec(run.id, '2'));
      expect(await store.completeExecution(T, run.id, '2', 'x')).toBe(2);
      expect(await store.listWaiting()).toEqual([]);
      expect((await store.loadReplayLog(run.id)).map((r) => [r.key, r.delivered])).toEqual([
        ['1', 1],
        ['2', 2],
      ]);
    });

    it('a pause is recorded already waiting, asked once', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, pause(run.id, '1'));
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        status: 'waiting_human',
        ask: 1,
        waitingFor: 'Deploy?',
      });
      expect((await store.getRun(run.id))!.status).toBe('waiting_human');
      expect(await eventTypes(store, run.id)).toEqual(['run_started', 'execution_started', 'waiting']);
    });

    it('open calls, totals and cost are read per run', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1', { agent: 'planner' }));
      await store.markWaiting(
        T,
        run.id,
        '1',
        { waitingFor: 'q', awaiting: 'input', metrics: { costUsd: 0.25, numTurns: 1, durationMs: 1 } },
        'waiting_human',
      );
      for (let i = 2; i <= 5; i++) {
        await store.startExecution(T, exec(run.id, String(i), i === 5 ? { kind: 'sh', agent: null } : {}));
        if (i < 4)
          await store.completeExecution(T, run.id, String(i), 'ok', { costUsd: 0.5, numTurns: 1, durationMs: 1 });
      }
      expect((await store.openExecutions(run.id)).map((e) => [e.key, e.status])).toEqual([
        ['1', 'waiting_human'],
        ['4', 'running'],
        ['5', 'running'],
      ]);
      expect(await store.executionTotals(run.id)).toEqual({ calls: 5, cost: 1.25, agent: 'coder' });
      expect(await store.runCost(run.id)).toBe(1.25);
      const empty = await store.createRun(newRun());
      expect(await store.executionTotals(empty.id)).toEqual({ calls: 0, cost: 0, agent: null });
    });

    it('closeExecution and cancelExecutions end structural and cancelled calls without ending the run', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      for (const key of ['1', '1/1', '1/2'])
        await store.startExecution(T, exec(run.id, key, key === '1' ? { kind: 'parallel', agent: null } : {}));
      await store.cancelExecutions(T, run.id, ['1/2'], 'a sibling failed');
      await store.closeExecution(T, run.id, '1', 'a sibling failed');
      expect(await store.getExecution(run.id, '1/2')).toMatchObject({ status: 'failed', error: 'a sibling failed' });
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        status: 'failed',
        error: 'a sibling failed',
        delivered: null,
      });
      expect((await store.openExecutions(run.id)).map((e) => e.key)).toEqual(['1/1']);
      expect((await store.getRun(run.id))!.status).toBe('running');
    });

    it('finishing a run fails its running calls, once: a second finish changes nothing', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.startExecution(T, exec(run.id, '2'));
      await store.completeExecution(T, run.id, '2', 'ok');
      expect(await store.finishRun(T, run.id, { ...ended(), result: { ok: 1 } })).toBe(true);
      expect(await store.finishRun(T, run.id, ended('stuck', 'late stop'))).toBe(false);
      expect(await store.getRun(run.id)).toMatchObject({ status: 'completed', reason: null, result: { ok: 1 } });
      expect((await store.getRun(run.id))!.endedAt).not.toBeNull();
      expect(await store.getExecution(run.id, '1')).toMatchObject({
        status: 'failed',
        error: 'the run ended completed',
      });
      expect(await store.getExecution(run.id, '2')).toMatchObject({ status: 'completed' });
      expect(await store.openExecutions(run.id)).toEqual([]);
      expect(await store.listOpenRuns()).toEqual([]);
      expect(await eventTypes(store, run.id)).toEqual([
        'run_started',
        'execution_started',
        'execution_started',
        'execution_finished',
        'completed',
      ]);
    });

    it('finishing a run ends its waiting calls too (failed, with the reason): nothing waits on an ended run', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, pause(run.id, '1'));
      await store.startExecution(T, exec(run.id, '2'));
      await store.markWaiting(T, run.id, '2', { waitingFor: 'which db?', awaiting: 'input' }, 'waiting_human');
      await store.startExecution(T, exec(run.id, '3'));
      expect(await store.finishRun(T, run.id, ended('stuck', 'stopped by ann'))).toBe(true);
      for (const key of ['1', '2', '3']) {
        expect(await store.getExecution(run.id, key), key).toMatchObject({
          status: 'failed',
          error: 'the run ended stuck: stopped by ann',
        });
      }
      expect((await store.getExecution(run.id, '1'))!.finishedAt).not.toBeNull();
      expect(await store.openExecutions(run.id)).toEqual([]);
      expect(await store.listWaiting()).toEqual([]);
      expect((await store.listRuns())[0]).toMatchObject({ id: run.id, status: 'stuck', waiting: null });
    });

    it('finishRun with failedKey fails that call with the reason', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1'));
      await store.finishRun(T, run.id, { ...ended('failed', 'agent crashed'), failedKey: '1' });
      expect(await store.getRun(run.id)).toMatchObject({ status: 'failed', reason: 'agent crashed' });
      expect(await store.getExecution(run.id, '1')).toMatchObject({ status: 'failed', error: 'agent crashed' });
    });

    it('an ended run takes no answer and lists nothing waiting', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, pause(run.id, '1'));
      await store.finishRun(T, run.id, ended('stuck', 'stopped'));
      expect(await store.listWaiting()).toEqual([]);
      await expect(store.recordAnswer(answerBy(run.id, '1', 'CONTINUE'))).rejects.toThrow(ConflictError);
      expect(await store.listAnswers(run.id)).toEqual([]);
    });

    it('an answer not taken in when the run ended is waited on by no one: answeredRuns leaves the run out', async () => {
      const { store } = ctx;
      const run = await store.createRun(newRun());
      await store.startExecution(T, pause(run.id, '1'));
      await store.recordAnswer(answerBy(run.id, '1', 'CONTINUE'));
      expect(await store.answeredRuns()).toEqual([run.id]);
      await store.finishRun(T, run.id, ended('stuck', 'stopped'));
      expect(await store.answeredRuns()).toEqual([]);
    });
  });
}
