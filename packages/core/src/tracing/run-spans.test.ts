import { describe, expect, it } from 'vitest';
import { agentAsk, answer, fakeRun } from '../engine/testing/executions.js';
import type { Store } from '../store/store.js';
import { askSpan, attemptSpan, rootSpan } from './run-spans.js';
import type { RunSpan } from './span-sink.js';
import { attemptTraceparent, runTrace } from './trace-ids.js';
import { tracedStore } from './traced-store.js';

describe('run spans', () => {
  it('a run is named by its own records: the same ids in every process, another run of that id elsewhere apart', () => {
    const run = fakeRun({ id: 7, createdAt: 1_700_000_000_000, seed: 42 });
    expect(runTrace(run)).toEqual(runTrace({ ...run }));
    expect(runTrace(run).traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(runTrace(run).rootSpanId).toMatch(/^[0-9a-f]{16}$/);
    expect(runTrace({ ...run, createdAt: run.createdAt + 1 }).traceId).not.toBe(runTrace(run).traceId);
    expect(runTrace({ ...run, seed: 43 }).traceId).not.toBe(runTrace(run).traceId);
    const tp = attemptTraceparent(run, '2', 1);
    expect(tp).toMatch(new RegExp(`^00-${runTrace(run).traceId}-[0-9a-f]{16}-01$`));
    expect(attemptTraceparent(run, '2', 2)).not.toBe(tp);
  });

  it('an ask names who answered, its text bounded; a failed attempt and a failed run are errors', () => {
    const run = fakeRun();
    const ask = askSpan(run, agentAsk({ ask: 1 }), answer({ responder: 'x'.repeat(5000) }), 1_000, 2_000);
    expect(ask.parentSpanId).toBe(runTrace(run).rootSpanId);
    expect(String(ask.attributes['shop.ask.answerer']).length).toBeLessThanOrEqual(200);
    expect(ask.endMs).toBe(answer().answeredAt);
    const failed = attemptSpan(
      run,
      agentAsk({ status: 'failed', error: 'exited with code 1', attempts: 3 }),
      'failed',
      5,
    );
    expect(failed).toMatchObject({
      error: 'exited with code 1',
      attributes: { 'shop.attempt': 3, 'shop.outcome': 'failed' },
    });
    expect(rootSpan(fakeRun({ status: 'failed', reason: 'gave up' }), 9).error).toBe('gave up');
    expect(rootSpan(fakeRun({ status: 'completed' }), 9).error).toBeNull();
  });

  it('tracing never fails a write: a read it needs that fails leaves the span out, the write stands', async () => {
    const exported: RunSpan[] = [];
    const store = {
      getExecution: () => Promise.reject(new Error('database is locked')),
      getRun: () => Promise.reject(new Error('database is locked')),
      completeExecution: () => Promise.resolve(4),
      now: () => 1,
    } as unknown as Store;
    const traced = tracedStore(store, { export: (s) => exported.push(s), flush: async () => undefined });
    await expect(traced.completeExecution('t', 7, '2', { status: 'DONE' })).resolves.toBe(4);
    expect(exported).toEqual([]);
    // Everything else passes through, bound to the store itself.
    expect(traced.now()).toBe(1);
  });
});
