import type { RunWithWaiting } from '@shop/core';
import type { Target } from '../../actions/targets.js';
import type { TuiDeps } from '../../deps.js';
import { commandFor, type Command } from '../../keys/bindings.js';
import { useKeypress } from '../../keys/KeypressContext.js';
import { RunDetailView } from './RunDetailView.js';
import { useDetailState, type DetailLayout } from './use-detail-state.js';

const MOVES: readonly string[] = ['up', 'down', 'pageUp', 'pageDown', 'top', 'bottom'];

/** A run's details: its state hook, its keys (↑↓ pick a call; actions aim at it when it waits), its view. */
export function DetailScreen({
  deps,
  run,
  runId,
  firstKey,
  tick,
  layout,
  paused,
  back,
  common,
}: {
  deps: TuiDeps;
  run: RunWithWaiting | undefined;
  runId: number;
  firstKey: string | null;
  tick: number;
  layout: DetailLayout;
  paused: boolean;
  back: () => void;
  common: (cmd: Command | null, target: Target | null) => boolean;
}) {
  const state = useDetailState(deps.ops, runId, run?.updatedAt ?? 0, tick, firstKey, layout, paused);
  useKeypress('detail', (input, key) => {
    const cmd = commandFor(input, key);
    if (cmd && MOVES.includes(cmd)) return state.move(cmd);
    if (cmd === 'back') return back();
    const picked = state.selected?.status === 'waiting_human' ? state.selected.key : null;
    common(cmd, { runId, key: picked });
  });
  return <RunDetailView state={state} layout={layout} now={deps.ops.liveness.clock.now()} runId={runId} />;
}
