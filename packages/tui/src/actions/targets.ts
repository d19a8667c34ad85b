import { UsageError } from '@shop/core';
import type { Execution, Run, ShopOperations } from '@shop/core';

/** What an action is aimed at: a run, and the call when the screen names one (inbox, details). */
export interface Target {
  runId: number;
  key: string | null;
}

/**
 * The ask an answer goes to, read fresh through core's pickAsk: the named call's current ask
 * (the one on screen), or the run's only one. Several open at once must be picked in the
 * details or the inbox. Answered already: a conflict that names who answered (the first
 * answer won); nothing open: a conflict saying what the run is doing.
 */
export async function waitingCall(
  ops: Pick<ShopOperations, 'pickAsk'>,
  target: Target,
): Promise<{ run: Run; exec: Execution }> {
  const { view, exec } = await ops.pickAsk({ runId: target.runId, key: target.key, ask: null }, 'tui', (v) => {
    const keys = v.waitingAll.map((e) => e.key).join(', ');
    return new UsageError(
      `run ${target.runId} waits on ${v.waitingAll.length} calls (${keys}): pick one with ↑↓ in its details, or in the inbox (i)`,
    );
  });
  return { run: view.run, exec };
}
