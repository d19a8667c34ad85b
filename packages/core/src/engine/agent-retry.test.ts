import { describe, expect, it } from 'vitest';
import { AgentError, BudgetSpent } from '../errors.js';
import {
  abortableSleep,
  addMetrics,
  backoffMs,
  TransientAgentError,
  withRetries,
  type Attempt,
  type RetryDeps,
  type RetryEvent,
} from './agent-retry.js';
import { pendingRetry } from './agent-retry-records.js';
import { Aborted, type Settled } from './outcome.js';
import { until } from '../testing/until.js';

const overloaded = { kind: 'overloaded' as const, detail: 'API Error: 529 overloaded_error' };
const done: Settled = { kind: 'value', value: { status: 'DONE' }, delivered: 1 };

/** A fake clock whose sleep moves time on at once, recording each wait. */
function world(retries: number, opts: { timeout?: number; random?: number } = {}) {
  const t = { now: 1_000_000 };
  const slept: number[] = [];
  const events: RetryEvent[] = [];
  let restarts = 0;
  const deps: RetryDeps = {
    timing: {
      baseMs: 2000,
      capMs: 60_000,
      random: () => opts.random ?? 0.5,
      sleep: async (ms) => void (slept.push(ms), (t.now += ms)),
    },
    clock: { now: () => t.now },
    retries,
    timeout: opts.timeout,
    record: async (e) => void events.push(e),
    restart: async () => void restarts++,
  };
  return { deps, slept, events, restarts: () => restarts, t };
}

/** An agent that fails transiently `n` times, then reports. */
function flaky(n: number, seen: Attempt[]) {
  return async (a: Attempt) => {
    seen.push(a);
    if (seen.length <= n)
      throw new TransientAgentError(`claude reported an error: API Error: 529 (try ${seen.length})`, overloaded, {
        costUsd: 0.01,
        numTurns: 1,
        durationMs: 5,
      });
    return done;
  };
}

const first: Attempt = { resume: false, prompt: 'Implement the plan', attempt: 1 };

describe('backoff', () => {
  it('doubles from the base up to the cap, half of it sure and half at random', () => {
    const at = (random: number) =>
      [1, 2, 3, 4, 5, 6, 7, 10].map((n) => backoffMs(n, { baseMs: 2000, capMs: 60_000, random: () => random }));
    expect(at(0)).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
    expect(at(0.999999).map((ms) => Math.round(ms / 1000))).toEqual([2, 4, 8, 16, 32, 60, 60, 60]);
    expect(backoffMs(1000, { baseMs: 2000, capMs: 60_000, random: () => 0.5 })).toBe(45_000);
  });

  it('a wait ends at once when the step is stopped', async () => {
    const stop = new AbortController();
    const waiting = abortableSleep(60_000, stop.signal);
    stop.abort();
    await expect(waiting).rejects.toBeInstanceOf(Aborted);
    await expect(abortableSleep(10, stop.signal)).rejects.toBeInstanceOf(Aborted);
  });
});

describe('retrying on the same session', () => {
  it('fails twice, then succeeds: two retries recorded, resumed with a continue prompt, costs carried', async () => {
    const w = world(3);
    const seen: Attempt[] = [];
    await expect(withRetries(w.deps, first, flaky(2, seen), new AbortController().signal)).resolves.toBe(done);
    expect(seen.map((a) => [a.try, a.attempt, a.resume])).toEqual([
      [1, 1, false],
      [2, 2, true],
      [3, 3, true],
    ]);
    expect(seen[1].prompt).toMatch(
      /cut off by a transient error \(API overloaded\)[\s\S]*What you were asked: Implement the plan/,
    );
    expect(seen[2].carry).toEqual({ costUsd: 0.01, numTurns: 1, durationMs: 5 });
    expect(w.events.map((e) => [e.attempt, e.of, e.kind, e.delay_ms])).toEqual([
      [1, 4, 'overloaded', 1500],
      [2, 4, 'overloaded', 3000],
    ]);
    expect(w.events[0]).toMatchObject({ error: overloaded.detail, retry_at: 1_000_000 + 1500, attempts: 1 });
    expect(w.slept).toEqual([1500, 3000]);
    expect(w.restarts()).toBe(2);
  });

  it('fails after the last attempt, naming the error and the attempts', async () => {
    const w = world(1);
    const seen: Attempt[] = [];
    const err = await withRetries(w.deps, first, flaky(5, seen), new AbortController().signal).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AgentError);
    expect(err).not.toBeInstanceOf(TransientAgentError);
    expect((err as Error).message).toBe(
      'API overloaded on all 2 attempts; the last: claude reported an error: API Error: 529 (try 2)',
    );
    expect(seen).toHaveLength(2);
    expect(w.events).toHaveLength(1);
  });

  it('retries = 0: the first failure is the failure, as it was', async () => {
    const w = world(0);
    const err = await withRetries(w.deps, first, flaky(5, []), new AbortController().signal).catch((e: unknown) => e);
    expect((err as Error).message).toBe('claude reported an error: API Error: 529 (try 1)');
    expect(w.events).toEqual([]);
  });

  it('other failures are not retried', async () => {
    const w = world(3);
    let calls = 0;
    const err = await withRetries(
      w.deps,
      first,
      async () => {
        calls++;
        throw new AgentError('claude reported an error: Invalid API key');
      },
      new AbortController().signal,
    ).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/Invalid API key/);
    expect(calls).toBe(1);
    expect(w.slept).toEqual([]);
  });

  it("the call's timeout bounds the waits too: no retry that could not start in time", async () => {
    const w = world(3, { timeout: 5 });
    const seen: Attempt[] = [];
    const err = await withRetries(w.deps, first, flaky(5, seen), new AbortController().signal).catch((e: unknown) => e);
    // 1.5 s then 3 s fit in 5 s; the third wait (6 s) does not.
    expect(seen.map((a) => a.timeoutLeft)).toEqual([5, 4, 1]);
    expect((err as Error).message).toMatch(
      /^API overloaded on attempt 3 of 4, and the call's timeout \(5s\) ends before the next could start \(in 6s\)/,
    );
  });

  it("the call's budget counts the failed tries: each retry may spend what is left, none when nothing is", async () => {
    const w = world(5);
    w.deps.budgetUsd = 0.05;
    const seen: Attempt[] = [];
    const err = await withRetries(
      w.deps,
      first,
      async (a) => {
        seen.push(a);
        // As agent-step does: this try's cost added to what the failed ones cost.
        throw new TransientAgentError(
          '529',
          overloaded,
          addMetrics(a.carry, { costUsd: 0.02, numTurns: 1, durationMs: 5 }),
        );
      },
      new AbortController().signal,
    ).catch((e: unknown) => e);
    expect(seen.map((a) => a.budgetUsd)).toEqual([undefined, 0.03, 0.01]);
    expect(err).toBeInstanceOf(BudgetSpent);
    expect((err as Error).message).toBe('budget of $0.05 spent: $0.06');
  });

  it('a stop during the wait ends it as stopped, with no further attempt', async () => {
    const w = world(3);
    const stop = new AbortController();
    let waiting = false;
    w.deps.timing.sleep = (ms, signal) => ((waiting = true), abortableSleep(ms, signal));
    w.deps.timing.baseMs = 60_000;
    const seen: Attempt[] = [];
    const running = withRetries(w.deps, first, flaky(5, seen), stop.signal);
    await until('the first attempt to fail and the wait to begin', () => waiting);
    stop.abort();
    await expect(running).rejects.toBeInstanceOf(Aborted);
    expect(seen).toHaveLength(1);
    expect(w.restarts()).toBe(0);
  });
});

describe('a driver that died during a retry', () => {
  const retry = (attempts: number) => ({
    key: '2',
    type: 'agent_retry',
    data: { attempt: 1, of: 4, attempts, retry_at: 5000 },
  });
  it('died in the wait: the next try, and when the wait ends', () => {
    expect(pendingRetry([{ key: '1', type: 'completed', data: null }, retry(1)], '2', 1)).toEqual({
      try: 2,
      retryAt: 5000,
    });
  });
  it('died in the retried attempt: the same try again, no wait', () => {
    expect(pendingRetry([retry(1)], '2', 2)).toEqual({ try: 2, retryAt: null });
  });
  it('anything after the retry (an answer, a send-back), or none: a fresh start', () => {
    expect(pendingRetry([retry(1), { key: '2', type: 'sent_back', data: {} }], '2', 1)).toBeNull();
    expect(pendingRetry([retry(1)], '3', 1)).toBeNull();
    expect(pendingRetry([{ key: '2', type: 'agent_retry', data: { attempt: 'x' } }], '2', 1)).toBeNull();
  });
});
