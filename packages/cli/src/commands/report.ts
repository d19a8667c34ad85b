import { UsageError, quoted } from '@shop/core';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';
import { deliverReport, reportBody } from '../report-delivery.js';

/** shop report <STATUS> …: run by the agent inside its step; writes SHOP_SIGNAL_FILE atomically. */
export default async function report(args: CommandArgs<'report'>, ctx: Context): Promise<number> {
  const [status] = args.positionals;
  if (!ctx.env.SHOP_SIGNAL_FILE)
    throw new UsageError('shop report runs inside an agent step: SHOP_SIGNAL_FILE is not set');
  if (!status) throw new UsageError('missing status; usage: shop report <STATUS> [--summary S] [--reason R]');
  const fields: Record<string, string> = {};
  for (const pair of args.values.field ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--field ${quoted(pair)} must look like key=value`);
    fields[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const body = reportBody({ status, ...pick(args.values), fields }, FLAG_NAMES);
  ctx.out(await deliverReport(ctx, body));
  return 0;
}

const pick = (v: { summary?: string; reason?: string; awaiting?: string }) => ({
  summary: v.summary,
  reason: v.reason,
  awaiting: v.awaiting,
});

/** Where each of the report's own parts goes on the command line (said when a field tries to give it). */
const FLAG_NAMES = {
  field: (key: string) => `--field ${key}`,
  own: { status: 'the STATUS argument', summary: '--summary', reason: '--reason', awaiting: '--awaiting' },
  needsHuman: 'shop report NEEDS_HUMAN --reason "…"',
  help: 'shop report --help',
};
