import { loadRunView } from '@shop/core/operations/run-view';
import { displayStatus, nodeLiveness } from '@shop/core/run-status';
import { flag } from './args.js';
import type { Context } from './context.js';
import type { ActionJson, AnsweredJson } from '@shop/core/operations/shapes';
import { pendingJson } from '@shop/core/operations/json-views';
import type { Parsed } from './registry.js';

/** What an acting command did, filled in as it goes: the run, and the ask it answered. */
export interface Acted {
  runId: number | null;
  answered: AnsweredJson | null;
}

/**
 * An acting command (run, resume, stop, approve, reject, answer, signal, continue). With
 * --json, the lines a person reads go to stderr and stdout gets one document (ActionJson):
 * the run, the ask answered, its state now, the asks open now with their handles, and the
 * exit code (unchanged by --json). An error prints no document: its line and code as always.
 */
export async function acting(ctx: Context, args: Parsed, command: string, work: (acted: Acted) => Promise<number>): Promise<number> {
  const acted: Acted = { runId: null, answered: null };
  if (!flag(args, 'json')) return work(acted);
  const stdout = ctx.divertToStderr();
  const code = await work(acted);
  if (acted.runId === null) return code;
  // An ask answered but left to a live driver is not among the open ones (loadRunView).
  const view = await loadRunView(await ctx.store(), acted.runId, { last: 0 });
  const doc: ActionJson = {
    command,
    run: view.run.id,
    answered: acted.answered,
    status: displayStatus(view.run, nodeLiveness()) as ActionJson['status'],
    reason: view.run.reason,
    result: view.run.result,
    exit_code: code,
    asks: view.waitingAll.map((e) => pendingJson(view.run.id, e)),
  };
  stdout(JSON.stringify(doc, null, 2));
  return code;
}
