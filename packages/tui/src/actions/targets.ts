import { UsageError } from '@shop/core/errors';
import { loadRunView, pickWaiting } from '@shop/core/operations/run-view';
import type { Store } from '@shop/core/store/store';
import type { Execution, Run } from '@shop/core/types';

/** What an action is aimed at: a run, and the call when the screen names one (inbox, details). */
export interface Target {
  runId: number;
  key: string | null;
}

/**
 * The waiting call an answer goes to, read fresh (its current ask): the one named, or the
 * run's only one. Several waiting at once must be picked in the details or the inbox. When
 * nothing waits, a conflict that names who answered last (the first answer won).
 */
export async function waitingCall(store: Store, target: Target): Promise<{ run: Run; exec: Execution }> {
  const view = await loadRunView(store, target.runId, { last: 0 });
  if (!target.key && view.waitingAll.length > 1) {
    const keys = view.waitingAll.map((e) => e.key).join(', ');
    throw new UsageError(`run ${target.runId} waits on ${view.waitingAll.length} calls (${keys}): pick one with ↑↓ in its details, or in the inbox (i)`);
  }
  return { run: view.run, exec: await pickWaiting(store, view, target.key ?? undefined, 'tui') };
}
