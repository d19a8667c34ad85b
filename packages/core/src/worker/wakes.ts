import type { EnginePorts } from '../engine/ports.js';
import type { SignalSource } from '../signals/signal-source.js';
import type { Wake } from '../store/worker-store.js';
import { isEventWake, isQueuedWake } from '../signals/wake.js';

/** What wakes a worker's next pass, merged into one source. */
export interface WorkerWakes extends SignalSource {
  /** After a pass: the earliest pending timer (the engine clock's time), or null — a wake is set for it. */
  nextDue(at: number | null): void;
  /** After a pass: in how long (ms) the first lease held elsewhere runs out, or null — a wake is set just after it. */
  nextLapse(inMs: number | null): void;
  /** A pass is wanted now (the worker could not act on a wake itself). */
  wake(): void;
}

/**
 * The worker's wake-ups without busy polling: the store's pushed wakes (PostgreSQL LISTEN on
 * shop_wake: new runs, answers, stops, releases, timers) and this machine's signal files, a
 * timer to the next due timer, and a sweep every `sweepMs` (a third of a lease) that finds
 * leases run out — nothing is written when a driver dies, so only time tells. A store that
 * cannot push (SQLite) keeps the signal watcher's short rescan: a local file, read cheaply.
 * `handled` sees each pushed wake first: true when the worker acted on it itself.
 */
export async function openWorkerWakes(
  ports: Pick<EnginePorts, 'store' | 'openSignals' | 'clock'>,
  sweepMs: number,
  handled: (w: Wake) => boolean = () => false,
): Promise<WorkerWakes> {
  const waker = new Waker();
  // A wake the worker can act on at once (an answer for a run it holds) needs no pass.
  const listening = ports.store.listen ? await ports.store.listen((w) => handled(w) || waker.wake()) : null;
  // Without pushed wakes (SQLite): answers' and events' wake-up files (each names its run) and a short rescan.
  const files = listening
    ? null
    : ports.openSignals({
        answersOnly: true,
        answered: (runId, path) =>
          handled({ kind: isQueuedWake(path) ? 'queued' : isEventWake(path) ? 'event' : 'answer', runId }),
      });
  let closed = false;
  void (async () => {
    while (files && !closed) {
      await files.next();
      waker.wake();
    }
  })();
  const sweep = setInterval(() => waker.wake(), sweepMs);
  let due: NodeJS.Timeout | null = null;
  let lapse: NodeJS.Timeout | null = null;
  return {
    next: () => waker.next(),
    wake: () => waker.wake(),
    nextDue(at) {
      if (due) clearTimeout(due);
      due = null;
      // Past the sweep the sweep wakes anyway; a clock moved by a test is caught up by it too.
      if (at !== null) due = setTimeout(() => waker.wake(), Math.min(Math.max(0, at - ports.clock.now()), sweepMs));
    },
    nextLapse(inMs) {
      if (lapse) clearTimeout(lapse);
      lapse = null;
      // A little after it (the store's clock decides; ours may be a few ms apart); past the sweep, the sweep wakes.
      if (inMs !== null && inMs < sweepMs) lapse = setTimeout(() => waker.wake(), inMs + LAPSE_MARGIN_MS);
    },
    async close() {
      closed = true;
      clearInterval(sweep);
      if (due) clearTimeout(due);
      if (lapse) clearTimeout(lapse);
      await files?.close();
      await listening?.close();
      waker.wake();
    },
  };
}

/** How long after a lease's end its wake comes: the store's clock is read at each pass, and time passes between. */
const LAPSE_MARGIN_MS = 50;

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
