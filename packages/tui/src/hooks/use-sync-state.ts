import { useCallback, useReducer, useRef } from 'react';

/**
 * State that key handlers read and write at once: keys may arrive faster than frames, and
 * each must see what the one before it did (a field moved to, a character typed).
 */
export function useSyncState<T>(init: () => T): [() => T, (next: (prev: T) => T) => void] {
  const box = useRef<{ value: T } | null>(null);
  box.current ??= { value: init() };
  const [, rerender] = useReducer((n: number) => n + 1, 0);
  const get = useCallback(() => box.current!.value, []);
  const set = useCallback((next: (prev: T) => T) => {
    box.current!.value = next(box.current!.value);
    rerender();
  }, []);
  return [get, set];
}
