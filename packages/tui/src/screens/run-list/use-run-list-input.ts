import { editText } from '../../keys/edit-text.js';
import { commandFor, type Command } from '../../keys/bindings.js';
import { useKeypress } from '../../keys/KeypressContext.js';
import type { Target } from '../../actions/targets.js';
import type { RunListState } from './use-run-list-state.js';

const MOVES: readonly string[] = ['up', 'down', 'pageUp', 'pageDown', 'top', 'bottom'];

/** The run list's keys, and the filter line's while `/` is open. */
export function useRunListInput(
  state: RunListState,
  open: (runId: number) => void,
  common: (cmd: Command | null, target: Target | null) => boolean,
) {
  useKeypress('list', (input, key) => {
    const cmd = commandFor(input, key);
    const target = state.selected ? { runId: state.selected.id, key: null } : null;
    if (cmd && MOVES.includes(cmd)) return state.move(cmd);
    if (cmd === 'open') return state.selected && open(state.selected.id);
    if (cmd === 'back') return state.setFilter('');
    if (cmd === 'filter') return state.setFiltering(true);
    if (cmd === 'active') return state.toggleActive();
    common(cmd, target);
  });
  useKeypress('filter', (input, key) => {
    if (key.return) return state.setFiltering(false);
    if (key.escape) {
      state.setFilter('');
      return state.setFiltering(false);
    }
    if (key.upArrow || key.downArrow) return state.move(key.upArrow ? 'up' : 'down');
    state.editFilter((filter) => editText(filter, input, key));
  });
}
