import type { EnginePorts } from '@shop/core/engine/ports';
import type { RunWithWaiting } from '@shop/core/store/store';
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
 * The runs, looked at every `pollMs` (changes only), not while the terminal is handed over.
 * A failing look is an internal error: it is thrown into the render, where Ink shows it.
 */
export function useRuns(ports: EnginePorts, pollMs: number, paused: boolean): Runs {
  const cache = useRef<RunCache | null>(null);
  cache.current ??= new RunCache(ports);
  const [state, setState] = useState({ version: 0, tick: 0, loaded: false });
  const [error, setError] = useState<unknown>(null);
  if (error) throw error;

  useEffect(() => {
    if (paused) return;
    let busy = false;
    let stopped = false;
    const look = async () => {
      if (busy) return;
      busy = true;
      try {
        await cache.current!.refresh();
        if (!stopped) setState((s) => ({ version: cache.current!.version, tick: s.tick + 1, loaded: true }));
      } catch (e) {
        if (!stopped) setError(e instanceof Error ? e : new Error(String(e)));
      } finally {
        busy = false;
      }
    };
    void look();
    const timer = setInterval(look, pollMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [ports, pollMs, paused]);

  const c = cache.current;
  return { runs: c.runs, get: (id) => c.get(id), ...state };
}
