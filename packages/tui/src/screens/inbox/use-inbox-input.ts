import type { Target } from '../../actions/targets.js';
import { commandFor, type Command } from '../../keys/bindings.js';
import { useKeypress } from '../../keys/KeypressContext.js';
import type { InboxState } from './use-inbox-state.js';

const MOVES: readonly string[] = ['up', 'down', 'pageUp', 'pageDown', 'top', 'bottom'];

/** The inbox's keys: each row is one ask, so actions answer exactly that call. */
export function useInboxInput(
  state: InboxState,
  open: (target: Target) => void,
  back: () => void,
  common: (cmd: Command | null, target: Target | null) => boolean,
) {
  useKeypress('inbox', (input, key) => {
    const cmd = commandFor(input, key);
    if (cmd && MOVES.includes(cmd)) return state.move(cmd);
    if (cmd === 'open') return state.selected && open(state.selected);
    if (cmd === 'back') return back();
    common(cmd, state.selected);
  });
}
