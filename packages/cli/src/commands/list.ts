import { UsageError, displayStatuses, quoted } from '@shop/core';
import type { RunJson } from '@shop/core';
import { limitArg } from '../args.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import { agentColumn, firstLine } from '../output.js';
import type { CommandArgs } from '../registry.js';
import { ago, cost, table } from '../table.js';
import { elapsed } from '../live-board.js';
import { paint, statusColour } from '../style.js';
import { suggest } from '../suggest.js';
import { localTime } from '../time.js';

/**
 * What a running run's agent is doing: "[3] Edit src/login.ts (2m 05s)"; an interrupted
 * run's call is not running (no clock ticks for it): "[3] driver gone since … (last: Edit …)".
 */
function now(r: RunJson): string | null {
  const a = r.activity;
  if (r.driver_gone_since)
    return `${a ? `[${a.key}] ` : ''}driver gone since ${localTime(Date.parse(r.driver_gone_since))}${a?.text ? ` (last: ${a.text})` : ''}; shop resume ${r.id}`;
  return a ? `[${a.key}] ${a.text ?? 'working'} (${elapsed(Date.now() - Date.parse(a.since))})` : null;
}

/** A queued run's place: "queued (priority 5, key prod)". */
function queuedText(r: RunJson): string | null {
  if (r.status !== 'queued') return null;
  const how = [r.priority ? `priority ${r.priority}` : '', r.key ? `key ${r.key}` : ''].filter(Boolean).join(', ');
  return `waits for a worker${how ? ` (${how})` : ''}`;
}

/** shop list [--active] [--status S] [--limit N] [--json]: newest first. */
export default async function list(args: CommandArgs<'list'>, ctx: Context): Promise<number> {
  if (args.values.waiting) return (await import('./inbox.js')).default(args, ctx);
  const status = args.values.status;
  if (status !== undefined && !(displayStatuses as readonly string[]).includes(status)) {
    const meant = suggest(status, displayStatuses);
    throw new UsageError(
      `--status ${quoted(status)} is not a run status${meant ? `; did you mean "${meant}"?` : ''} (one of ${displayStatuses.join(', ')})`,
    );
  }
  const json = args.values.json;
  const limit = limitArg(args.values, 'runs');
  const { rows, total } = await (await ctx.reads()).runs({ active: args.values.active, status, limit });
  if (json) {
    printJson(ctx.out, rows);
    return 0;
  }
  if (!rows.length) {
    ctx.out(
      status || args.values.active ? 'no runs match' : 'no runs yet; start one with: shop run <workflow> [prompt…]',
    );
    return 0;
  }
  const body = rows.map((r) => [
    // A child run (call_workflow) names its parent: "child ↳ of 7".
    String(r.id),
    r.parent === null ? r.spec : `${r.spec} ↳ of ${r.parent}`,
    r.status,
    agentColumn(r.agent),
    r.awaiting ?? '-',
    ago(Date.parse(r.created_at)),
    cost(r.cost_usd),
    firstLine(now(r) ?? r.waiting_for ?? r.reason ?? queuedText(r) ?? '-'),
  ]);
  const style = (col: number, text: string) => (col === 2 ? paint(ctx.style.color, statusColour(text), text) : text);
  const header = ['ID', 'SPEC', 'STATUS', 'AGENT', 'AWAITING', 'AGE', 'COST', 'NOW / WAITING FOR / REASON'];
  for (const line of table(header, body, { width: ctx.style.width, shrink: [7, 1, 3], style })) ctx.out(line);
  if (total > rows.length) ctx.out(`… ${total - rows.length} more (shop list --limit 0 for all)`);
  return 0;
}
