import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { usePgCluster } from '../../../../../test/pg-cluster-hooks.js';
import { ConflictError } from '../../errors.js';
import { exec, LONG, newRun, owner, T } from '../contract/fixtures.js';
import type { Store } from '../store.js';
import { WAKE_CHANNEL } from './pg-db.js';
import { openPgStore } from './pg-store.js';

/** What only the PostgreSQL store does: wake-ups on shop_wake, and leases by the database's clock. */
const cluster = usePgCluster();

/** A store on a fresh database and a LISTENer on its wake channel, collecting payloads. */
async function listening(now?: () => number) {
  const url = await cluster.fresh('pgstore');
  const store = await openPgStore(url, now ? { now } : {});
  const listener = new pg.Client({ connectionString: url });
  await listener.connect();
  const woke: string[] = [];
  listener.on('notification', (m) => woke.push(String(m.payload)));
  await listener.query(`LISTEN ${WAKE_CHANNEL}`);
  const settle = async (count: number) => {
    for (let i = 0; i < 500 && woke.length < count; i++) await new Promise((r) => setTimeout(r, 10));
    return woke;
  };
  return {
    store,
    woke,
    settle,
    close: async () => {
      await listener.end();
      await store.close();
    },
  };
}

const wait = (store: Store, runId: number, key: string, timers = [] as Parameters<Store['markWaiting']>[3]['timers']) =>
  store.markWaiting(T, runId, key, { waitingFor: 'Which?', awaiting: 'input', timers }, 'waiting_human');

describe('PostgreSQL store wake-ups (LISTEN shop_wake)', () => {
  it('wakes workers on a new run, an answer, a stop, a release and a timer that goes on or ends the run — once each, on commit', async () => {
    let t = 1_000_000;
    const s = await listening(() => t);
    try {
      const run = await s.store.createRun(newRun());
      await s.store.startExecution(T, exec(run.id, '1'));
      await wait(s.store, run.id, '1', [{ kind: 'remind', dueAt: t + 10, data: {} }]);
      const [timer] = await s.store.dueTimers(t + 10);
      t += 10;
      await s.store.fireTimer(T, timer!, {
        event: { type: 'reminded', actor: 'system:timer', channel: 'engine' },
        next: { kind: 'remind', dueAt: t + 10, data: {} },
      });
      await s.store.recordAnswer({
        runId: run.id,
        key: '1',
        ask: 1,
        verdict: 'answer',
        status: null,
        message: 'pg',
        decisions: null,
        responder: 'ann',
        channel: 'cli',
      });
      // A refused answer (the ask is taken) wakes nobody.
      await expect(
        s.store.recordAnswer({
          runId: run.id,
          key: '1',
          ask: 1,
          verdict: 'answer',
          status: null,
          message: 'no',
          decisions: null,
          responder: 'bob',
          channel: 'cli',
        }),
      ).rejects.toThrow('already answered');
      await s.store.requestStop(run.id, 'enough', 'ann');
      expect(await s.store.releaseRun(run.id, T, { ifIdle: false })).toBe('released');
      expect(await s.settle(5)).toEqual([
        `run:${run.id}`,
        `timer:${run.id}`,
        `answer:${run.id}`,
        `stop:${run.id}`,
        `released:${run.id}`,
      ]);
    } finally {
      await s.close();
    }
  });

  it('a timer that fires into an ask already answered is void and wakes nobody', async () => {
    let t = 1_000_000;
    const s = await listening(() => t);
    try {
      const run = await s.store.createRun(newRun());
      await s.store.startExecution(T, exec(run.id, '1'));
      await wait(s.store, run.id, '1', [{ kind: 'timeout', dueAt: t + 10, data: {} }]);
      await s.store.recordAnswer({
        runId: run.id,
        key: '1',
        ask: 1,
        verdict: 'approved',
        status: null,
        message: null,
        decisions: null,
        responder: 'ann',
        channel: 'cli',
      });
      const [timer] = await s.store.dueTimers((t += 10));
      const fired = await s.store.fireTimer(T, timer!, {
        event: { type: 'timed_out', actor: 'system:timeout', channel: 'engine' },
        end: { status: 'stuck', reason: 'late', event: { type: 'stuck', actor: 'shop', channel: 'engine' } },
      });
      expect(fired).toBe(false);
      await s.store.requestStop(run.id, 'marker', 'ann');
      expect(await s.settle(3)).toEqual([`run:${run.id}`, `answer:${run.id}`, `stop:${run.id}`]);
    } finally {
      await s.close();
    }
  });
});

describe("PostgreSQL store's clock", () => {
  it('without an injected clock, leases are judged by the database clock', async () => {
    const s = await listening();
    try {
      const before = Date.now();
      const run = await s.store.createRun(newRun({ leaseMs: 60_000 }));
      // Same host: the database's clock is this machine's, give or take the measurement.
      expect(run.owner!.leaseUntil).toBeGreaterThanOrEqual(before + 60_000 - 1_000);
      expect(run.owner!.leaseUntil).toBeLessThanOrEqual(Date.now() + 60_000 + 1_000);
      expect(await s.store.claimRun(run.id, owner('token-b'), LONG, null)).toBeNull();
      const short = await s.store.createRun(newRun({ leaseMs: 1 }));
      await new Promise((r) => setTimeout(r, 20));
      expect((await s.store.claimRun(short.id, owner('token-b'), LONG, null))?.owner?.token).toBe('token-b');
    } finally {
      await s.close();
    }
  });
});

describe('PostgreSQL store: whole numbers', () => {
  it('keeps times and counts a caller computed with a fraction, rounded, where SQLite keeps them as given', async () => {
    const url = await cluster.fresh('pgstore');
    let t = 1_000_000.4;
    const store = await openPgStore(url, { now: () => t });
    try {
      const run = await store.createRun(newRun({ leaseMs: 15_000.5 }));
      expect(run.owner!.leaseUntil).toBe(1_015_001);
      expect(await store.renewLease(run.id, T, 20_000.2)).toBe(true);
      await store.startExecution(T, exec(run.id, '1'));
      await store.setActivity(T, run.id, '1', { text: 'Edit a.ts', numTurns: 2.0, durationMs: 12.6 });
      t = 1_000_100.6;
      const waiting = await store.markWaiting(
        T,
        run.id,
        '1',
        {
          waitingFor: 'q',
          awaiting: 'input',
          metrics: { costUsd: 0.1, numTurns: 3, durationMs: 99.5 },
          timers: [{ kind: 'remind', dueAt: t + 1500.5, data: {} }],
        },
        'waiting_human',
      );
      expect(waiting).toMatchObject({ durationMs: 100, numTurns: 3, updatedAt: 1_000_101 });
      expect(await store.nextTimer([run.id])).toBe(1_001_601);
    } finally {
      await store.close();
    }
  });
});

describe('PostgreSQL store: a one-statement write racing a transaction on the same run', () => {
  it('completing a call that a committed write failed meanwhile is a ConflictError and writes nothing', async () => {
    const url = await cluster.fresh('pgstore');
    const store = await openPgStore(url, { now: () => 1_000_000 });
    const other = new pg.Client({ connectionString: url });
    await other.connect();
    try {
      const run = await store.createRun(newRun());
      await store.startExecution(T, exec(run.id, '1', { kind: 'sh', agent: null }));
      // Another transaction (a parallel branch ending the run) holds the run row and fails the call.
      await other.query('BEGIN');
      await other.query('SELECT 1 FROM runs WHERE id = $1 FOR UPDATE', [run.id]);
      await other.query(
        `UPDATE executions SET status = 'failed', error = 'the run ended' WHERE run_id = $1 AND call_key = '1'`,
        [run.id],
      );
      const completing = store.completeExecution(T, run.id, '1', { ok: true }).then(
        () => 'completed',
        (e: unknown) => e,
      );
      // Its statement has begun (its snapshot taken) and waits for the run row: then the other commits.
      for (let i = 0; i < 500; i++) {
        const [w] = (
          await other.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
          )
        ).rows;
        if (w.n > 0) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await other.query('COMMIT');
      expect(await completing).toBeInstanceOf(ConflictError);
      const [call] = await store.loadExecutions(run.id);
      expect(call).toMatchObject({ status: 'failed', delivered: null, result: null });
      expect((await store.listEvents(run.id)).map((e) => e.type)).toEqual(['run_started', 'execution_started']);
    } finally {
      await other.end();
      await store.close();
    }
  });
});
