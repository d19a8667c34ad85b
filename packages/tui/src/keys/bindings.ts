import type { Key } from 'ink';

/** Every shortcut of the browser, in one table: the input hooks and the help screen read it. */
export type Command =
  | 'up'
  | 'down'
  | 'pageUp'
  | 'pageDown'
  | 'top'
  | 'bottom'
  | 'open'
  | 'back'
  | 'filter'
  | 'active'
  | 'inbox'
  | 'continue'
  | 'approve'
  | 'reject'
  | 'claim'
  | 'stop'
  | 'start'
  | 'editor'
  | 'help'
  | 'quit';

export interface Binding {
  command: Command;
  /** Characters, or Ink key names: up, down, pageUp, pageDown, return, escape. */
  keys: string[];
  /** How the key is written on screen. */
  shows: string;
  does: string;
}

export const BINDINGS: readonly Binding[] = [
  { command: 'up', keys: ['up', 'k'], shows: '↑ k', does: 'move up' },
  { command: 'down', keys: ['down', 'j'], shows: '↓ j', does: 'move down' },
  { command: 'pageUp', keys: ['pageUp'], shows: 'PgUp', does: 'a page up' },
  { command: 'pageDown', keys: ['pageDown'], shows: 'PgDn', does: 'a page down' },
  { command: 'top', keys: ['g'], shows: 'g', does: 'first' },
  { command: 'bottom', keys: ['G'], shows: 'G', does: 'last' },
  { command: 'open', keys: ['return'], shows: 'Enter', does: "the run's details" },
  { command: 'back', keys: ['escape'], shows: 'Esc', does: 'back (clears the filter on the list)' },
  { command: 'filter', keys: ['/'], shows: '/', does: 'filter runs (id, spec, status, agent, text)' },
  { command: 'active', keys: ['a'], shows: 'a', does: 'active runs only (on/off)' },
  { command: 'inbox', keys: ['i'], shows: 'i', does: 'inbox: every pending ask, oldest first' },
  {
    command: 'continue',
    keys: ['c'],
    shows: 'c',
    does: "continue: open the agent's Claude session, or decide a pause",
  },
  { command: 'approve', keys: ['A'], shows: 'A', does: 'approve what it waits on (with a message)' },
  { command: 'reject', keys: ['R'], shows: 'R', does: 'reject it (with feedback)' },
  {
    command: 'claim',
    keys: ['m'],
    shows: 'm',
    does: "claim the ask (I'm on it: reminders wait), or let go of your claim",
  },
  { command: 'stop', keys: ['s'], shows: 's', does: 'stop the run (with a reason)' },
  { command: 'start', keys: ['n'], shows: 'n', does: 'start a run: a workflow and its prompt, queued for the workers' },
  { command: 'editor', keys: ['o'], shows: 'o', does: 'open the workspace in $VISUAL / $EDITOR' },
  { command: 'help', keys: ['?'], shows: '?', does: 'these keys' },
  { command: 'quit', keys: ['q'], shows: 'q', does: 'quit' },
];

const NAMED: Record<string, (k: Key) => boolean> = {
  up: (k) => k.upArrow,
  down: (k) => k.downArrow,
  pageUp: (k) => k.pageUp,
  pageDown: (k) => k.pageDown,
  return: (k) => k.return,
  escape: (k) => k.escape,
};

/** The command a keypress means, if any. */
export function commandFor(input: string, key: Key): Command | null {
  // Ink reports Esc with meta set; any other key with Ctrl or Alt is no command of ours.
  if (key.ctrl || (key.meta && !key.escape)) return null;
  for (const b of BINDINGS) {
    if (b.keys.some((k) => (NAMED[k] ? NAMED[k](key) : input === k))) return b.command;
  }
  return null;
}
