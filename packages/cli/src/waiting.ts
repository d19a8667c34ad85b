import { ConflictError, UsageError } from '@shop/core/errors';
import type { Execution } from '@shop/core/types';
import type { RunView } from './run-view.js';

/** The waiting call to answer: the only one, or the one `--call` names. */
export function pickWaiting(view: RunView, call: string | undefined, command: string): Execution {
  const { run, waitingAll } = view;
  if (!waitingAll.length) {
    throw new ConflictError(`run ${run.id} is not waiting for a person (it is ${run.status}${run.reason ? `: ${run.reason}` : ''})`);
  }
  if (call) {
    const exec = waitingAll.find((e) => e.key === call);
    if (!exec) throw new UsageError(`run ${run.id} has no waiting call ${call} (waiting: ${waitingAll.map((e) => e.key).join(', ')})`);
    return exec;
  }
  if (waitingAll.length > 1) {
    const list = waitingAll.map((e) => `${e.key} (${e.agent}: ${e.waitingFor})`).join('; ');
    throw new UsageError(`run ${run.id} waits on several calls: ${list}; pick one with: shop ${command} ${run.id} --call <key>`);
  }
  return waitingAll[0];
}
