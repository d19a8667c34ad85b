import { UsageError } from '@shop/core/errors';
import { quoted } from '@shop/core/text';
import { describeIssues } from '@shop/core/lua/issues';
import { SignalSchema, writeSignal } from '@shop/core/signals/signal';
import { str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

/** shop report <STATUS> …: run by the agent inside its step; writes SHOP_SIGNAL_FILE atomically. */
export default async function report(args: Parsed, ctx: Context): Promise<number> {
  const file = ctx.env.SHOP_SIGNAL_FILE;
  if (!file) throw new UsageError('shop report runs inside an agent step: SHOP_SIGNAL_FILE is not set');
  const [status] = args.positionals;
  if (!status) throw new UsageError('missing status; usage: shop report <STATUS> [--summary S] [--reason R]');
  const body: Record<string, unknown> = { status };
  for (const k of ['summary', 'reason', 'awaiting']) if (str(args, k) !== undefined) body[k] = str(args, k);
  for (const pair of (args.values.field as string[] | undefined) ?? []) {
    const eq = pair.indexOf('=');
    if (eq < 1) throw new UsageError(`--field ${quoted(pair)} must look like key=value`);
    body[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  const parsed = SignalSchema.safeParse(body);
  if (!parsed.success) throw new UsageError(`bad signal: ${describeIssues(parsed.error)}`);
  writeSignal(file, parsed.data);
  ctx.out(`reported ${parsed.data.status} to ${file}`);
  return 0;
}
