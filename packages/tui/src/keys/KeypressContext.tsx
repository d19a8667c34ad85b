import { useInput, useStdin, type Key } from 'ink';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { splitKeys } from './split-keys.js';

/** Who gets the keys: one screen or overlay at a time. */
export type Focus = 'list' | 'filter' | 'inbox' | 'detail' | 'prompt' | 'form' | 'confirm' | 'help' | 'none';
export type KeyHandler = (input: string, key: Key) => void;

interface Keypress {
  /** Which screen or overlay has the keys, asked at each key (set by the browser). */
  focus: { current: () => Focus };
  register(focus: Focus, handler: KeyHandler): () => void;
  /** Gives the terminal to `job` (a child attached to it) and takes it back when the job ends. */
  handOver<T>(job: () => Promise<T>): Promise<T>;
  /** Keys typed meanwhile wait until `work` (an action opening its prompt) settles. */
  hold(work: Promise<unknown>): void;
  suspended: boolean;
}

const KeypressContext = createContext<Keypress | null>(null);

/** Where text is typed: text that arrives as one piece there stays one (a paste). */
const TEXT_FOCUS: readonly Focus[] = ['filter', 'prompt', 'form'];

/** Frames are throttled (30 a second): wait past one so the last frame is out before the child draws. */
const SETTLE_MS = 50;

/**
 * The one keypress source: a single useInput hands each key to the handler of the focused
 * screen. Handing the terminal over (DESIGN, "Claude Code"): the input goes inactive so Ink
 * drops raw mode, a tick later stdin is paused so Node stops reading what the child should
 * get; afterwards input comes back on and Ink takes raw mode again.
 */
export function KeypressProvider({ children }: { children: ReactNode }) {
  const handlers = useRef(new Map<Focus, KeyHandler>());
  const focusRef = useRef<() => Focus>(() => 'list');
  const [suspended, setSuspended] = useState(false);
  const { stdin } = useStdin();
  // A handler that throws is a bug: shown by Ink's error view (the app exits 1), not a raw crash.
  const [failure, setFailure] = useState<unknown>(null);
  if (failure) throw failure;
  // Keys wait their turn: the next is handled once what the one before it did has rendered
  // (a layout effect of this provider, after the children's), so "jjA" typed at once
  // approves the run the cursor reached and "Alooks good" types into the prompt A opened —
  // whether the keys come in one piece or one by one faster than frames.
  const queue = useRef<[string, Key][]>([]);
  const holding = useRef(0);
  const rendering = useRef(false);
  const [turn, setTurn] = useState(0);
  const handleNext = () => {
    if (holding.current > 0) return;
    const next = queue.current.shift();
    if (!next) return;
    try {
      handlers.current.get(focusRef.current())?.(...next);
    } catch (e) {
      queue.current = [];
      setFailure(e instanceof Error ? e : new Error(String(e)));
    }
    rendering.current = true;
    setTurn((t) => t + 1);
  };
  useLayoutEffect(() => {
    rendering.current = false;
    handleNext();
  }, [turn]);
  const hold = useCallback((work: Promise<unknown>) => {
    holding.current += 1;
    const release = () => {
      holding.current -= 1;
      setTurn((t) => t + 1);
    };
    work.then(release, release);
  }, []);
  useInput(
    (input, key) => {
      const idle = queue.current.length === 0 && holding.current === 0 && !rendering.current;
      queue.current.push(...splitKeys(input, key, TEXT_FOCUS.includes(focusRef.current())));
      if (idle) handleNext();
    },
    { isActive: !suspended },
  );

  // Resolved once a change of `suspended` is committed, and Ink's input effect (declared
  // before this one) has dropped or taken raw mode again.
  const committed = useRef<(() => void) | null>(null);
  useEffect(() => {
    committed.current?.();
    committed.current = null;
  }, [suspended]);
  const suspend = useCallback(
    (on: boolean) =>
      new Promise<void>((resolve) => {
        committed.current = resolve;
        setSuspended(on);
      }),
    [],
  );

  const register = useCallback((f: Focus, handler: KeyHandler) => {
    handlers.current.set(f, handler);
    return () => {
      if (handlers.current.get(f) === handler) handlers.current.delete(f);
    };
  }, []);

  const handOver = useCallback(
    async <T,>(job: () => Promise<T>): Promise<T> => {
      queue.current = []; // typed before the terminal changed hands: not for what comes after
      await suspend(true);
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      stdin.pause();
      try {
        return await job();
      } finally {
        await suspend(false);
      }
    },
    [stdin, suspend],
  );

  const value = useMemo(
    () => ({ focus: focusRef, register, handOver, hold, suspended }),
    [register, handOver, hold, suspended],
  );
  return <KeypressContext.Provider value={value}>{children}</KeypressContext.Provider>;
}

function useKeypressContext(): Keypress {
  const ctx = useContext(KeypressContext);
  if (!ctx) throw new Error('useKeypress outside KeypressProvider');
  return ctx;
}

/**
 * Subscribes `handler` to the keys while `focus` is focused — in the commit that shows the
 * screen (a layout effect), so a key typed right after it appears is not lost.
 */
export function useKeypress(focus: Focus, handler: KeyHandler): void {
  const { register } = useKeypressContext();
  const latest = useRef(handler);
  latest.current = handler;
  useLayoutEffect(() => register(focus, (input, key) => latest.current(input, key)), [focus, register]);
}

/**
 * Says who has the keys (explicit focus: one screen or overlay at a time). Asked at each
 * key, from state that changes at once, so a key typed right after `/` or `A` goes to the
 * line or prompt just opened even before it is drawn.
 */
export function useFocus(focus: () => Focus): void {
  useKeypressContext().focus.current = focus;
}

export function useHandOver(): Pick<Keypress, 'handOver' | 'hold' | 'suspended'> {
  const { handOver, hold, suspended } = useKeypressContext();
  return { handOver, hold, suspended };
}
