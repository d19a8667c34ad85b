import { displayStatus, driverGoneSince, nodeLiveness } from '@shop/core/run-status';
import { flag } from '../args.js';
import { localTime } from '../time.js';
import type { InboxRowJson } from '../json-shapes.js';
import type { Context } from '../context.js';
import { pendingJson, printJson } from '../json.js';
import { agentColumn, firstLine } from '../output.js';
import type { Parsed } from '../registry.js';
import { ago, table } from '../table.js';

/** shop inbox (= shop list --waiting): every pending ask across runs, oldest first. */
export default async function inbox(args: Parsed, ctx: Context): Promise<number> {
  const waiting = await (await ctx.store()).listWaiting();
  const liveness = nodeLiveness();
  const rows: InboxRowJson[] = waiting.map(({ run, execution }) => ({ run: run.id, spec: run.spec, run_status: displayStatus(run, liveness), ...pendingJson(run.id, execution) }));
  if (flag(args, 'json')) {
    printJson(ctx.out, rows);
    return 0;
  }
  if (!rows.length) {
    ctx.out('nothing waits for a person');
    return 0;
  }
  const body = waiting.map(({ run, execution: e }, i) => [
    String(run.id), run.spec, e.key, e.awaiting ?? 'input', agentColumn(e.agent), ago(e.updatedAt), firstLine(e.waitingFor ?? ''), rows[i].answer_with[0],
  ]);
  const header = ['RUN', 'SPEC', 'CALL', 'AWAITING', 'AGENT', 'WAITED', 'QUESTION', 'ANSWER WITH'];
  for (const line of table(header, body, { width: ctx.style.width, shrink: [6, 7, 1] })) ctx.out(line);
  // A run whose driver is gone stalls its other calls too: say so once per run, with since when.
  const gone = new Map(waiting.map(({ run }) => [run.id, driverGoneSince(run, liveness)] as const).filter(([, t]) => t !== null));
  for (const [id, since] of gone) ctx.out(`run ${id} is interrupted: its driver is gone since ${localTime(since!)}; its other calls wait for: shop resume ${id}`);
  return 0;
}
