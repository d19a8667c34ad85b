import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SignalOptions, SignalSource } from '../signals/signal-source.js';
import type { Store } from '../store/store.js';
import type { Wake } from '../store/worker-store.js';
import { openWorkerWakes } from './wakes.js';

/** A signal folder whose changes the test makes, and the options it was opened with. */
function files() {
  const opened: (SignalOptions | undefined)[] = [];
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
    opened,
    source,
    closed: () => closed,
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
    ports: { store, clock, openSignals: (o?: SignalOptions) => (f.opened.push(o), f.source) },
    files: f,
    clock,
    wake: (w: Wake) => onWake!(w),
    listenClosed: () => listenClosed,
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
  it('on a store that pushes wakes: no signal folder watched; a pushed wake (an answer elsewhere) wakes it, and closing stops listening', async () => {
    const t = ports({ listen: true });
    const wakes = await openWorkerWakes(t.ports, 60_000);
    expect(t.files.opened).toEqual([]);
    const next = wakes.next();
    expect(await settled(next)).toBe(false);
    t.wake({ kind: 'answer', runId: 7 });
    expect(await settled(next)).toBe(true);
    // A wake while no pass waited is not lost.
    t.wake({ kind: 'stop', runId: 7 });
    expect(await settled(wakes.next())).toBe(true);
    await wakes.close();
    expect(t.listenClosed()).toBe(true);
  });

  it('a pushed wake the worker acted on itself (an answer for a run it holds) makes no pass', async () => {
    const t = ports({ listen: true });
    const seen: Wake[] = [];
    const wakes = await openWorkerWakes(t.ports, 60_000, (w) => (seen.push(w), w.runId === 7));
    const next = wakes.next();
    t.wake({ kind: 'answer', runId: 7 });
    expect(await settled(next)).toBe(false);
    t.wake({ kind: 'answer', runId: 8 });
    expect(await settled(next)).toBe(true);
    expect(seen).toEqual([
      { kind: 'answer', runId: 7 },
      { kind: 'answer', runId: 8 },
    ]);
    await wakes.close();
  });

  it("without one (SQLite) the signal folder is watched for answers' wake-ups, with its rescan, and one wakes it", async () => {
    const t = ports({ listen: false });
    const wakes = await openWorkerWakes(t.ports, 60_000);
    expect(t.files.opened).toEqual([expect.objectContaining({ answersOnly: true })]);
    expect(t.files.opened[0]?.rescanMs).toBeUndefined();
    const next = wakes.next();
    expect(await settled(next)).toBe(false);
    t.files.change();
    expect(await settled(next)).toBe(true);
    await wakes.close();
    expect(t.files.closed()).toBe(true);
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

  it("wakes just after the first lease held elsewhere runs out (a dead driver's), not at the sweep after it", async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const t = ports({ listen: true });
    const wakes = await openWorkerWakes(t.ports, 5_000);
    wakes.nextLapse(1_200);
    let next = wakes.next();
    await vi.advanceTimersByTimeAsync(1_200);
    expect(await settled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(next)).toBe(true);
    // Further off than the sweep: the sweep comes first (and the pass after it looks again).
    wakes.nextLapse(60_000);
    next = wakes.next();
    await vi.advanceTimersByTimeAsync(3_600);
    expect(await settled(next)).toBe(false);
    await vi.advanceTimersByTimeAsync(100);
    expect(await settled(next)).toBe(true);
    await wakes.close();
  });
});
