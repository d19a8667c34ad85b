import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SignalSource } from '../signals/signal-source.js';
import type { Store } from '../store/store.js';
import type { Wake } from '../store/worker-store.js';
import { openWorkerWakes } from './wakes.js';

/** A signal folder whose changes the test makes, and the options it was opened with. */
function files() {
  const opened: ({ rescanMs?: number } | undefined)[] = [];
  let waiters: (() => void)[] = [];
  let closed = false;
  const source: SignalSource = {
    next: () => new Promise((r) => waiters.push(r)),
    close: async () => {
      closed = true;
      for (const w of waiters.splice(0)) w();
    },
  };
  return {
    opened, source, closed: () => closed,
    change: () => {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    },
  };
}

function ports(opts: { listen: boolean }) {
  const f = files();
  let onWake: ((w: Wake) => void) | null = null;
  let listenClosed = false;
  const store = {
    listen: opts.listen
      ? async (fn: (w: Wake) => void) => {
          onWake = fn;
          return { close: async () => void (listenClosed = true) };
        }
      : undefined,
  } as unknown as Store;
  const clock = { t: 1_000_000, now: () => clock.t };
  return {
    ports: { store, clock, openSignals: (o?: { rescanMs?: number }) => (f.opened.push(o), f.source) },
    files: f, clock, wake: (w: Wake) => onWake!(w), listenClosed: () => listenClosed,
  };
}

/** Whether `p` has settled once pending callbacks ran. */
async function settled(p: Promise<void>): Promise<boolean> {
  let done = false;
  void p.then(() => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
}

afterEach(() => vi.useRealTimers());

describe("a worker's wakes", () => {
  it('on a store that pushes wakes: no rescan of the signal folder; a pushed wake (an answer elsewhere) wakes it, and closing stops listening', async () => {
    const t = ports({ listen: true });
    const wakes = await openWorkerWakes(t.ports, 60_000);
    expect(t.files.opened).toEqual([{ rescanMs: 0 }]);
    const next = wakes.next();
    expect(await settled(next)).toBe(false);
    t.wake({ kind: 'answer', runId: 7 });
    expect(await settled(next)).toBe(true);
    // A wake while no pass waited is not lost.
    t.wake({ kind: 'stop', runId: 7 });
    expect(await settled(wakes.next())).toBe(true);
    await wakes.close();
    expect(t.listenClosed()).toBe(true);
    expect(t.files.closed()).toBe(true);
  });

  it('without one (SQLite) the signal folder keeps its rescan, and a signal file wakes it', async () => {
    const t = ports({ listen: false });
    const wakes = await openWorkerWakes(t.ports, 60_000);
    expect(t.files.opened).toEqual([undefined]);
    const next = wakes.next();
    expect(await settled(next)).toBe(false);
    t.files.change();
    expect(await settled(next)).toBe(true);
    await wakes.close();
  });

  it('wakes at the next due timer, and at the sweep (a third of a lease) when nothing else comes', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const t = ports({ listen: true });
    const wakes = await openWorkerWakes(t.ports, 5_000);
    wakes.nextDue(t.clock.t + 2_000);
    let next = wakes.next();
    await vi.advanceTimersByTimeAsync(1_999);
    expect(await settled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(next)).toBe(true);
    wakes.nextDue(null);
    next = wakes.next();
    await vi.advanceTimersByTimeAsync(2_999);
    expect(await settled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await settled(next)).toBe(true);
    await wakes.close();
  });
});
