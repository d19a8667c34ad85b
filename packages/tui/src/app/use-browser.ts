import type { Execution, Run } from '@shop/core';
import { useSyncState } from '../hooks/use-sync-state.js';
import type { Focus } from '../keys/KeypressContext.js';

export type Screen =
  | { name: 'list' }
  | { name: 'inbox' }
  /** `key`: the call to select first; `back`: where Esc goes. */
  | { name: 'detail'; runId: number; key: string | null; back: 'list' | 'inbox' };

/** A line of text typed in: an approval's message, feedback, a stop's reason. */
export interface PromptOverlay {
  kind: 'prompt';
  title: string;
  label: string;
  /** Checks and acts on the text: an error keeps the prompt open with it shown (nothing done). */
  submit(text: string): string | null;
}

/** The decisions of a pause (or continue/stop for a plain one). `approving` pre-fills approvals. */
export interface FormOverlay {
  kind: 'form';
  run: Run;
  exec: Execution;
  approving: boolean;
}

/** Shown while the terminal belongs to another program. */
export interface HandoffOverlay {
  kind: 'handoff';
  title: string;
  lines: string[];
}

/**
 * The last step before an action on a run (an answer, a stop): what it will do, taken only by
 * a y pressed after a pause — never by keys typed on from what came before (Enter included).
 */
export interface ConfirmOverlay {
  kind: 'confirm';
  title: string;
  lines: string[];
  /** What y does, for the hint ("stop it"). */
  verb: string;
  act(): void;
  /** Said when it is taken away without acting ("run 3 not stopped"). */
  cancelled: string;
}

export type Overlay = { kind: 'help' } | PromptOverlay | FormOverlay | ConfirmOverlay | HandoffOverlay;

/** Which screen is up and what is over it (changed at once, for the focus); the focus follows from both. */
export function useBrowser() {
  const [state, setState] = useSyncState<{ screen: Screen; overlay: Overlay | null }>(() => ({
    screen: { name: 'list' },
    overlay: null,
  }));
  const { screen, overlay } = state();
  return {
    screen,
    overlay,
    now: state,
    setScreen: (next: Screen) => setState((s) => ({ ...s, screen: next })),
    setOverlay: (next: Overlay | null) => setState((s) => ({ ...s, overlay: next })),
  };
}
export type Browser = ReturnType<typeof useBrowser>;

export function focusOf(screen: Screen, overlay: Overlay | null, filtering: boolean): Focus {
  if (overlay) return overlay.kind === 'handoff' ? 'none' : overlay.kind;
  if (screen.name === 'list' && filtering) return 'filter';
  return screen.name;
}
