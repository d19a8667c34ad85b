import { flag, runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { eventJson, executionJson, printJson, runJson } from '../json.js';
import { loadRunView } from '@shop/core/operations/run-view';
import type { Parsed } from '../registry.js';

/** shop log <id> [--json]: the audit trail, in order. */
export default async function log(args: Parsed, ctx: Context): Promise<number> {
  const id = runIdArg(args, 'shop log <id> [--json]');
  const store = await ctx.store();
  const { run, executions, waiting, cost } = await loadRunView(store, id);
  const events = await store.listEvents(id);
  if (flag(args, 'json')) {
    printJson(ctx.out, { run: runJson(run, waiting, cost), executions: executions.map((e) => executionJson(e, true)), events: events.map(eventJson) });
    return 0;
  }
  const agents = new Map(executions.map((e) => [e.key, e.agent ?? e.kind]));
  for (const e of events) {
    const time = new Date(e.at).toISOString().replace('T', ' ').slice(0, 19);
    const call = e.key ? ` [${e.key}${agents.get(e.key) ? ` ${agents.get(e.key)}` : ''}]` : '';
    const who = e.actor === 'shop' ? '' : ` by ${e.actor} (${e.channel})`;
    ctx.out(`${time}  ${e.type}${call}${who}${detail(e.data)}`);
  }
  return 0;
}

function detail(data: Record<string, unknown> | null): string {
  if (!data) return '';
  const parts = Object.entries(data)
    .filter(([, v]) => v != null && v !== '')
    .map(([k, v]) => `${k}=${typeof v === 'string' ? JSON.stringify(v.length > 80 ? `${v.slice(0, 77)}…` : v) : JSON.stringify(v)}`);
  return parts.length ? `  ${parts.join(' ')}` : '';
}
