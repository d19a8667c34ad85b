import { flag } from '../args.js';
import type { InboxRowJson } from '../json-shapes.js';
import type { Context } from '../context.js';
import { pendingJson, printJson } from '../json.js';
import { agentColumn, firstLine } from '../output.js';
import type { Parsed } from '../registry.js';
import { ago, table } from '../table.js';

/** shop inbox (= shop list --waiting): every pending ask across runs, oldest first. */
export default async function inbox(args: Parsed, ctx: Context): Promise<number> {
  const waiting = await (await ctx.store()).listWaiting();
  const rows: InboxRowJson[] = waiting.map(({ run, execution }) => ({ run: run.id, spec: run.spec, ...pendingJson(run.id, execution) }));
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
  return 0;
}
