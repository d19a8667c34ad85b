import { UsageError } from '@shop/core/errors';
import type { RunStatus } from '@shop/core/types';
import { flag, str } from '../args.js';
import type { Context } from '../context.js';
import { printJson, runJson } from '../json.js';
import { firstLine } from '../output.js';
import type { Parsed } from '../registry.js';
import { table } from '../table.js';
import type { RunJson } from '../json-shapes.js';
import { elapsed } from '../live-board.js';

/** What a running run's agent is doing: "[3] Edit src/login.ts (2m 05s)". */
function now(r: RunJson): string | null {
  const a = r.activity;
  return a ? `[${a.key}] ${a.text ?? 'working'} (${elapsed(Date.now() - Date.parse(a.since))})` : null;
}

const STATUSES = ['running', 'waiting_human', 'completed', 'stuck', 'failed'];

/** shop list [--active] [--status S] [--json] */
export default async function list(args: Parsed, ctx: Context): Promise<number> {
  if (flag(args, 'waiting')) return (await import('./inbox.js')).default(args, ctx);
  const status = str(args, 'status');
  if (status && !STATUSES.includes(status)) throw new UsageError(`--status "${status}" is not one of ${STATUSES.join(', ')}`);
  const store = await ctx.store();
  const runs = await store.listRuns({ active: flag(args, 'active'), status: status as RunStatus | undefined });
  const rows = runs.map((r) => runJson(r, r.waiting, r.costUsd, r.running?.agent ?? null, r.running));
  if (flag(args, 'json')) {
    printJson(ctx.out, rows);
    return 0;
  }
  if (!rows.length) {
    ctx.out(status || flag(args, 'active') ? 'no runs match' : 'no runs yet; start one with: shop run <workflow> [prompt…]');
    return 0;
  }
  const body = rows.map((r) => [
    String(r.id), r.spec, r.status, r.agent ?? '-', r.awaiting ?? '-', firstLine(now(r) ?? r.waiting_for ?? r.reason ?? '-'),
  ]);
  for (const line of table(['ID', 'SPEC', 'STATUS', 'AGENT', 'AWAITING', 'NOW / WAITING FOR / REASON'], body)) ctx.out(line);
  return 0;
}
