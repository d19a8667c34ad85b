import type { Store } from '../store/store.js';
import type { Execution, Run } from '../types.js';
import { askSpan, attemptSpan, otherSpan, rootSpan } from './run-spans.js';
import type { RunSpan, SpanSink } from './span-sink.js';

type Hooks = Pick<
  Store,
  | 'completeExecution'
  | 'markWaiting'
  | 'restartExecution'
  | 'endWait'
  | 'closeExecution'
  | 'cancelExecutions'
  | 'finishRun'
  | 'fireTimer'
>;

/**
 * The store, with each call's span exported as the driver records its end — and the run's root
 * span as the run ends. Nothing is held open: every span is built from the store's records (their
 * times), so a run that suspends for days and resumes in another process lands in one trace.
 * A replayed call writes nothing, so only live work is exported. Tracing never fails a write:
 * what goes wrong in it is left out of the trace.
 */
export function tracedStore(store: Store, sink: SpanSink): Store {
  const spans = new StoreSpans(store, sink);
  const hooks: Hooks = {
    async completeExecution(token, runId, key, result, metrics) {
      const prev = await spans.read(runId, key);
      const delivered = await store.completeExecution(token, runId, key, result, metrics);
      if (prev && prev.status !== 'completed')
        await spans.after(runId, key, (run, exec) => spans.ended(run, prev, exec));
      return delivered;
    },
    async markWaiting(token, runId, key, ask, runStatus) {
      const prev = await spans.read(runId, key);
      const exec = await store.markWaiting(token, runId, key, ask, runStatus);
      if (prev?.status === 'running' && prev.kind === 'run')
        await spans.after(runId, key, (run, now) => [
          attemptSpan(
            run,
            { ...now, attempts: prev.attempts, attemptAt: prev.attemptAt },
            'needs_human',
            now.updatedAt,
            prev,
          ),
        ]);
      return exec;
    },
    async restartExecution(token, runId, key, opts) {
      const prev = await spans.read(runId, key);
      await store.restartExecution(token, runId, key, opts);
      if (prev) await spans.after(runId, key, (run) => spans.restarted(run, prev));
    },
    async endWait(token, runId, key, result, event) {
      // What it waited on is cleared as the wait ends: read before.
      const prev = await spans.read(runId, key);
      const delivered = await store.endWait(token, runId, key, result, event);
      if (delivered !== null)
        await spans.after(runId, key, (run, exec) => [
          otherSpan(run, { ...exec, waitKind: prev?.waitKind ?? exec.waitKind }, store.now()),
        ]);
      return delivered;
    },
    async closeExecution(token, runId, key, error) {
      await store.closeExecution(token, runId, key, error);
      await spans.after(runId, key, (run, exec) => [otherSpan(run, exec, store.now())]);
    },
    async cancelExecutions(token, runId, keys, reason) {
      const open = await spans.open(runId);
      await store.cancelExecutions(token, runId, keys, reason);
      await spans.failed(
        runId,
        open.filter((e) => keys.includes(e.key)),
      );
    },
    async finishRun(token, runId, end) {
      const open = await spans.open(runId);
      const ended = await store.finishRun(token, runId, end);
      if (ended) await spans.runEnded(runId, open);
      return ended;
    },
    async fireTimer(token, timer, effect) {
      const open = effect.end ? await spans.open(timer.runId) : [];
      const fired = await store.fireTimer(token, timer, effect);
      if (fired && effect.end) await spans.runEnded(timer.runId, open);
      return fired;
    },
  };
  const bound = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      if (Object.hasOwn(hooks, prop)) return hooks[prop as keyof Hooks];
      const value: unknown = Reflect.get(target, prop, target);
      if (typeof value !== 'function') return value;
      if (!bound.has(prop)) bound.set(prop, (value as (...a: unknown[]) => unknown).bind(target));
      return bound.get(prop);
    },
  });
}

/** Reads what a span needs around a write, and exports; nothing here may fail the write. */
class StoreSpans {
  private readonly runs = new Map<number, Run>();

  constructor(
    private readonly store: Store,
    private readonly sink: SpanSink,
  ) {}

  async read(runId: number, key: string): Promise<Execution | null> {
    return this.store.getExecution(runId, key).catch(() => null);
  }

  async open(runId: number): Promise<Execution[]> {
    return this.store.openExecutions(runId).catch(() => []);
  }

  /** Exports what `build` makes of the run and the call as recorded now. */
  async after(
    runId: number,
    key: string,
    build: (run: Run, exec: Execution) => RunSpan[] | Promise<RunSpan[]>,
  ): Promise<void> {
    try {
      const [run, exec] = await Promise.all([this.run(runId), this.store.getExecution(runId, key)]);
      if (run && exec) for (const span of await build(run, exec)) this.sink.export(span);
    } catch {
      // The trace misses this span; the run goes on.
    }
  }

  /** A call completed: an agent's attempt, an ask answered, or another call. */
  async ended(run: Run, prev: Execution, exec: Execution) {
    const now = exec.finishedAt ?? this.store.now();
    if (prev.status === 'waiting_human') return [await this.answered(run, prev, now)];
    return [exec.kind === 'run' ? attemptSpan(run, exec, 'completed', now, prev) : otherSpan(run, exec, now)];
  }

  /** Running again: after a person's answer (the ask ends), or after a failed or interrupted attempt. */
  async restarted(run: Run, prev: Execution) {
    const now = this.store.now();
    if (prev.status === 'waiting_human') return [await this.answered(run, prev, now)];
    return prev.status === 'running' && prev.kind === 'run' ? [attemptSpan(run, prev, 'restarted', now)] : [];
  }

  /** Calls that were open and are failed now. */
  async failed(runId: number, open: Execution[]): Promise<void> {
    for (const was of open)
      await this.after(runId, was.key, (run, exec) => {
        if (exec.status !== 'failed') return [];
        const end = exec.finishedAt ?? this.store.now();
        return [exec.kind === 'run' ? attemptSpan(run, exec, 'failed', end, was) : otherSpan(run, exec, end)];
      });
  }

  /** The run ended: its open calls failed with it, and its root span goes. */
  async runEnded(runId: number, open: Execution[]): Promise<void> {
    await this.failed(runId, open);
    try {
      const run = await this.store.getRun(runId);
      if (run) this.sink.export(rootSpan(run, run.endedAt ?? this.store.now()));
    } catch {
      // As above: the trace misses it.
    }
  }

  /** The wait for a person, from its ask to its answer (a pause waits from its start; an agent from its question). */
  private async answered(run: Run, prev: Execution, now: number) {
    const answer = await this.store.getAnswer(run.id, prev.key, prev.ask).catch(() => null);
    return askSpan(run, prev, answer, prev.kind === 'run' ? prev.updatedAt : prev.startedAt, now);
  }

  private async run(runId: number): Promise<Run | null> {
    const known = this.runs.get(runId);
    if (known) return known;
    const run = await this.store.getRun(runId);
    if (run) this.runs.set(runId, run);
    return run;
  }
}
