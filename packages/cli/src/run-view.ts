import { NotFoundError } from '@shop/core/errors';
import type { Store } from '@shop/core/store/store';
import type { Execution, Run } from '@shop/core/types';

export interface RunView {
  run: Run;
  executions: Execution[];
  waiting: Execution | null;
  waitingAll: Execution[];
  cost: number;
}

/** A run with its executions, the call(s) it waits on and its total cost. */
export async function loadRunView(store: Store, id: number): Promise<RunView> {
  const run = await store.getRun(id);
  if (!run) throw new NotFoundError(`no run ${id}; see runs with: shop list`);
  const executions = await store.loadExecutions(id);
  const waitingAll = run.status === 'waiting_human' ? executions.filter((e) => e.status === 'waiting_human') : [];
  const cost = executions.reduce((sum, e) => sum + (e.costUsd ?? 0), 0);
  return { run, executions, waiting: waitingAll[0] ?? null, waitingAll, cost };
}
