import type { RunWithWaiting, ShopOperations } from '@shop/core';
import { useEffect, useRef, useState } from 'react';
import { RunCache } from '../data/run-cache.js';

export interface Runs {
  runs: readonly RunWithWaiting[];
  get(id: number): RunWithWaiting | undefined;
  /** Goes up when a run changed. */
  version: number;
  /** Goes up on every look, so ages move on. */
  tick: number;
  loaded: boolean;
}

/**
 * How often to look and redraw when no run is running: a change another process makes still
 * shows within two seconds; ages on screen move on each second while a run changed in the last
 * minute (they read "12s"), otherwise twice a minute. Measured with 36 ended runs: looking and
 * redrawing every 500 ms cost 7.9% of a core and grew to 200 MB.
 */
const IDLE_LOOK_MS = 2_000;
const IDLE_REDRAW_MS = { recent: 1_000, old: 30_000 };

/**
 * The runs, looked at every `pollMs` (changes only) while a run is running, less often when
 * none is; not while the terminal is handed over. The screen is redrawn (`tick`) when a look
 * found a change, on every look while a run is running (its timer and log tail move on), and
 * otherwise only as often as the ages shown change.
 * A failing look is an internal error: it is thrown into the render, where Ink shows it.
 */
export function useRuns(ops: ShopOperations, pollMs: number, paused: boolean): Runs {
  const cache = useRef<RunCache | null>(null);
  cache.current ??= new RunCache(ops);
  const [state, setState] = useState({ version: 0, tick: 0, loaded: false });
  const [error, setError] = useState<unknown>(null);
  if (error) throw error;

  useEffect(() => {
    if (paused) return;
    let stopped = false;
    let timer: NodeJS.Timeout | undefined;
    let drawnAt = -Infinity;
    const look = async () => {
      const c = cache.current!;
      let active = true;
      try {
        const changed = await c.refresh();
        active = c.runs.some((r) => r.status === 'running');
        const now = ops.liveness.clock.now();
        const recent = c.runs.some((r) => now - r.updatedAt < 60_000);
        const redrawEvery = active ? 0 : recent ? IDLE_REDRAW_MS.recent : IDLE_REDRAW_MS.old;
        if (!stopped && (changed || !c.loadedOnce || now - drawnAt >= redrawEvery)) {
          drawnAt = now;
          c.loadedOnce = true;
          setState((s) => ({ version: c.version, tick: s.tick + 1, loaded: true }));
        }
      } catch (e) {
        if (!stopped) setError(e instanceof Error ? e : new Error(String(e)));
      }
      if (!stopped) timer = setTimeout(look, active ? pollMs : Math.max(pollMs, Math.min(IDLE_LOOK_MS, pollMs * 4)));
    };
    void look();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [ops, pollMs, paused]);

  const c = cache.current;
  return { runs: c.runs, get: (id) => c.get(id), ...state };
}
