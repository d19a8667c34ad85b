import type { SignalSource } from '../signals/signal-source.js';
import { hasEnded, type Execution, type Run } from '../types.js';
import type { AgentStep } from './agent-step.js';
import { checkAnswer } from './check-answer.js';
import { ended, value, type CallResult } from './outcome.js';
import type { EnginePorts } from './ports.js';
import type { DriveOptions } from './run-driver.js';

/**
 * A call waiting for a person. Checks for the answer now; a live `--wait` process keeps
 * checking on every wake-up (a signal file changed, or the periodic rescan for answers
 * recorded by other processes) and resumes in place.
 */
export class HumanWait {
  private signals: SignalSource | null = null;
  private announced = new Set<string>();

  constructor(
    private readonly ports: EnginePorts,
    private readonly run: Run,
    private readonly agentStep: AgentStep,
    private readonly opts: DriveOptions,
  ) {}

  async wait(initial: Execution): Promise<CallResult> {
    const { store, notifier } = this.ports;
    let exec = initial;
    for (;;) {
      const found = await checkAnswer(this.ports, this.run, exec);
      if (found?.kind === 'value') {
        notifier.notify({ type: 'resumed', key: exec.key, by: found.by });
        await store.appendEvent(this.run.id, { type: 'resumed', key: exec.key, actor: found.by, channel: 'engine' });
        return value(found.value);
      }
      if (found?.kind === 'back') {
        notifier.notify({ type: 'resumed', key: exec.key, by: found.by });
        const next = await this.agentStep.sendBack(exec, found.prompt);
        if (next.kind !== 'suspend') return next;
        exec = next.execution;
        continue;
      }
      const current = await store.getRun(this.run.id);
      if (current && hasEnded(current)) return { kind: 'end', outcome: ended(current) };
      // A retried run (failed → running) replays into a call that still waits: mark the run
      // waiting again, or no one could answer it.
      if (current?.status === 'running') {
        await store.setRunStatus(this.run.id, 'waiting_human', { type: 'waiting', key: exec.key, actor: 'shop', channel: 'engine', data: { waiting_for: exec.waitingFor, awaiting: exec.awaiting } });
      }
      if (!this.opts.wait || this.opts.signal?.aborted) return { kind: 'suspend', execution: exec };
      if (!this.announced.has(`${exec.key}#${exec.ask}`)) {
        this.announced.add(`${exec.key}#${exec.ask}`);
        notifier.notify({ type: 'waiting', execution: exec });
      }
      this.signals ??= this.ports.openSignals();
      await Promise.race([this.signals.next(), abortPromise(this.opts.signal)]);
    }
  }

  async close(): Promise<void> {
    await this.signals?.close();
  }
}

function abortPromise(signal?: AbortSignal): Promise<void> {
  if (!signal) return new Promise(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}
