import { useEffect, useState } from 'react';

/**
 * Loads `load()` again whenever `key` changes (and not while `paused`); the last value stays
 * on screen meanwhile. A failing load is thrown into the render (an internal error).
 */
export function useReload<T>(load: (() => Promise<T>) | null, key: string, paused = false): T | null {
  const [value, setValue] = useState<{ key: string; value: T } | null>(null);
  const [error, setError] = useState<unknown>(null);
  if (error) throw error;
  useEffect(() => {
    if (!load || paused) return;
    let stale = false;
    load().then(
      (v) => !stale && setValue({ key, value: v }),
      (e: unknown) => !stale && setError(e instanceof Error ? e : new Error(String(e))),
    );
    return () => {
      stale = true;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- `load` is a new closure each render; `key` says when it reads something new.
  }, [key, paused, load === null]);
  return load ? (value?.value ?? null) : null;
}
