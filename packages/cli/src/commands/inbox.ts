import { driverGoneSince } from '@shop/core';
import { localTime } from '../time.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import { agentColumn, firstLine } from '../output.js';
import type { CommandArgs } from '../registry.js';
import { ago, table } from '../table.js';

/** shop inbox (= shop list --waiting): every pending ask across runs, oldest first. */
export default async function inbox(args: CommandArgs<'inbox'>, ctx: Context): Promise<number> {
  const ops = await ctx.reads();
  const rows = await ops.inbox();
  if (args.values.json) {
    printJson(ctx.out, rows);
    return 0;
  }
  if (!rows.length) {
    ctx.out('nothing waits for a person');
    return 0;
  }
  const body = rows.map((r) => [
    String(r.run),
    r.parent === null ? r.spec : `${r.spec} ↳ of ${r.parent}`,
    r.key,
    r.awaiting ?? 'input',
    agentColumn(r.agent),
    ago(Date.parse(r.waiting_since!)),
    r.claimed_by?.by ?? '-',
    firstLine(r.question ?? ''),
    r.answer_with[0],
  ]);
  const header = ['RUN', 'SPEC', 'CALL', 'AWAITING', 'AGENT', 'WAITED', 'CLAIMED', 'QUESTION', 'ANSWER WITH'];
  for (const line of table(header, body, { width: ctx.style.width, shrink: [7, 8, 6, 1] })) ctx.out(line);
  // A run whose driver is gone stalls its other calls too: say so once per run, with since when.
  const gone = new Set(rows.filter((r) => r.run_status === 'interrupted').map((r) => r.run));
  for (const id of gone) {
    const run = await ops.run(id);
    const since = (run && driverGoneSince(run, ops.liveness)) ?? Date.now();
    ctx.out(
      `run ${id} is interrupted: its driver is gone since ${localTime(since)}; its other calls wait for: shop resume ${id}`,
    );
  }
  return 0;
}
