import type { Store } from '../store/store.js';
import type { Execution } from '../types.js';

/** How far down a chain of children is looked at (the depth bound of call_workflow). */
const MAX_LOOK = 8;

/**
 * The open asks of the runs these calls wait on, and of the runs those wait on, oldest run
 * first: a parent waiting on a child that waits for a person shows that person's ask.
 */
export async function childAsks(
  store: Pick<Store, 'openExecutions'>,
  waits: Execution[],
  depth = 0,
): Promise<Execution[]> {
  if (depth >= MAX_LOOK) return [];
  const asks: Execution[] = [];
  for (const w of waits) {
    if (w.waitKind !== 'run') continue;
    const childId = Number((w.request as { run_id?: unknown } | null)?.run_id);
    if (!Number.isInteger(childId)) continue;
    const open = await store.openExecutions(childId);
    asks.push(...open.filter((e) => e.status === 'waiting_human'));
    asks.push(
      ...(await childAsks(
        store,
        open.filter((e) => e.status === 'waiting'),
        depth + 1,
      )),
    );
  }
  return asks;
}
