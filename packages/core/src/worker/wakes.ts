import type { EnginePorts } from '../engine/ports.js';
import type { SignalSource } from '../signals/signal-source.js';

/** What wakes a worker's next pass, merged into one source. */
export interface WorkerWakes extends SignalSource {
  /** After a pass: the earliest pending timer (the engine clock's time), or null — a wake is set for it. */
  nextDue(at: number | null): void;
}

/**
 * The worker's wake-ups without busy polling: the store's pushed wakes (PostgreSQL LISTEN on
 * shop_wake: new runs, answers, stops, releases, timers) and this machine's signal files, a
 * timer to the next due timer, and a sweep every `sweepMs` (a third of a lease) that finds
 * leases run out — nothing is written when a driver dies, so only time tells. A store that
 * cannot push (SQLite) keeps the signal watcher's short rescan: a local file, read cheaply.
 */
export async function openWorkerWakes(ports: Pick<EnginePorts, 'store' | 'openSignals' | 'clock'>, sweepMs: number): Promise<WorkerWakes> {
  const waker = new Waker();
  const listening = ports.store.listen ? await ports.store.listen(() => waker.wake()) : null;
  const files = ports.openSignals(listening ? { rescanMs: 0 } : undefined);
  let closed = false;
  void (async () => {
    while (!closed) {
      await files.next();
      waker.wake();
    }
  })();
  const sweep = setInterval(() => waker.wake(), sweepMs);
  let due: NodeJS.Timeout | null = null;
  return {
    next: () => waker.next(),
    nextDue(at) {
      if (due) clearTimeout(due);
      due = null;
      // Past the sweep the sweep wakes anyway; a clock moved by a test is caught up by it too.
      if (at !== null) due = setTimeout(() => waker.wake(), Math.min(Math.max(0, at - ports.clock.now()), sweepMs));
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      if (due) clearTimeout(due);
      await files.close();
      await listening?.close();
      waker.wake();
    },
  };
}

/** Wakes whoever waits — or the next to wait, when the wake came while nobody did (it is not lost). */
class Waker {
  private waiters: (() => void)[] = [];
  private missed = false;

  next(): Promise<void> {
    if (this.missed) {
      this.missed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  wake() {
    const waiters = this.waiters;
    this.waiters = [];
    this.missed = waiters.length === 0;
    for (const w of waiters) w();
  }
}
