import type { Context } from '../context.js';
import { printJson } from '../json.js';
import { inert, type WorkersJson } from '@shop/core';
import type { CommandArgs } from '../registry.js';
import { ago, table } from '../table.js';
import { localTime } from '../time.js';

/**
 * shop workers: every `shop watch` registered on the store — on this machine or others sharing
 * it — with what it holds, since when, and whether it still heartbeats (live) or went silent (gone).
 */
export default async function workers(args: CommandArgs<'workers'>, ctx: Context): Promise<number> {
  const rows = await (await ctx.reads()).workers();
  if (args.values.json) {
    printJson(ctx.out, rows);
    return 0;
  }
  if (!rows.length) {
    ctx.out('no worker is registered on this store; start one with: shop watch');
    return 0;
  }
  const now = Date.now();
  const lines = table(
    ['HOST', 'PID', 'STATE', 'RUNS', 'AGENTS', 'SINCE', 'LAST HEARTBEAT'],
    rows.map((w) => [
      w.host,
      String(w.pid),
      w.state,
      ...held(w),
      localTime(Date.parse(w.since)),
      `${ago(Date.parse(w.last_heartbeat), now)} ago`,
    ]),
    { width: ctx.style.width, shrink: [0] },
  );
  for (const line of lines) ctx.out(line);
  // Why a live worker does not take a run: its checkout lacks it (another machine's worker drives it).
  for (const w of rows) for (const l of w.left) ctx.out(leavesLine(w, l));
  const gone = rows.filter((w) => w.state === 'gone').length;
  if (gone)
    ctx.out(
      `${gone} gone: stopped heartbeating without ending (killed, or its machine is down); live workers take over their runs once the lease runs out`,
    );
  return 0;
}

/**
 * One run a live worker leaves to others, and why. The host is another machine's word and the
 * reason quotes a run's paths: shown inert, so a control character in either is read, not obeyed.
 */
export function leavesLine(w: WorkersJson[number], l: WorkersJson[number]['left'][number]): string {
  return inert(`${w.host} (pid ${w.pid}) leaves run ${l.run} (${l.workflow}) to others: ${l.reason}`, false);
}

/** RUNS and AGENTS: what a live worker holds; a gone one holds nothing ("-"). */
function held(w: WorkersJson[number]): [string, string] {
  if (w.state === 'gone') return ['-', '-'];
  return [String(w.runs_held), w.max_parallel === null ? String(w.agents) : `${w.agents}/${w.max_parallel}`];
}
