import { describe, expect, it } from 'vitest';
import { usePgCluster } from '../../../../../test/pg-cluster-hooks.js';
import { answerBy, exec, newRun, T } from '../contract/fixtures.js';
import type { Wake } from '../worker-store.js';
import { openPgDb } from './pg-db.js';
import { openPgStore } from './pg-store.js';
import { parseWake } from './pg-workers.js';
import { until } from '../../testing/until.js';

/** store.listen on PostgreSQL: what a worker on one machine hears of writes on another, and after its connection drops. */
const cluster = usePgCluster();

describe('PostgreSQL listen (shop_wake)', () => {
  it("hears another connection's new run and answer as kind and run id; nothing once closed", async () => {
    const url = await cluster.fresh('pgworkers');
    const worker = await openPgStore(url);
    const other = await openPgStore(url);
    const heard: Wake[] = [];
    const listening = await worker.listen!((w) => heard.push(w));
    try {
      const run = await other.createRun(newRun());
      await other.startExecution(T, exec(run.id, '1'));
      await other.markWaiting(T, run.id, '1', { waitingFor: 'Which?', awaiting: 'input' }, 'waiting_human');
      await other.recordAnswer(answerBy(run.id, '1', 'DONE'));
      await until('both writes to be heard', () => heard.length >= 2);
      expect(heard).toEqual([
        { kind: 'run', runId: run.id },
        { kind: 'answer', runId: run.id },
      ]);
      await listening.close();
      await other.requestStop(run.id, 'enough', 'ann');
      await new Promise((r) => setTimeout(r, 200));
      expect(heard).toHaveLength(2);
    } finally {
      await worker.close();
      await other.close();
    }
  });

  it('listens again when its connection is cut (a database restart), says so once, and hears what comes after', async () => {
    const url = await cluster.fresh('pgworkers');
    const worker = await openPgStore(url);
    const other = await openPgStore(url);
    const admin = await openPgDb(url);
    const heard: Wake[] = [];
    await worker.listen!((w) => heard.push(w));
    try {
      const cut = await admin.query<{
        n: number;
      }>(`SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE 'LISTEN%' AND pid <> pg_backend_pid()`);
      expect(cut[0]!.n).toBe(1);
      await until('the listener to reconnect', () => heard.some((w) => w.kind === 'reconnected'));
      const run = await other.createRun(newRun());
      await until('the new run to be heard', () => heard.some((w) => w.kind === 'run'));
      expect(heard).toEqual([
        { kind: 'reconnected', runId: null },
        { kind: 'run', runId: run.id },
      ]);
    } finally {
      await worker.close();
      await other.close();
      await admin.close();
    }
  });

  it('reads a payload as kind:runId; anything else is a wake of unknown kind', () => {
    expect(parseWake('answer:42')).toEqual({ kind: 'answer', runId: 42 });
    expect(parseWake('timer:7')).toEqual({ kind: 'timer', runId: 7 });
    expect(parseWake('run:x')).toEqual({ kind: 'unknown', runId: null });
    expect(parseWake('')).toEqual({ kind: 'unknown', runId: null });
  });
});
