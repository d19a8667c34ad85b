import { UsageError, responder } from '@shop/core';
import { acting } from '../acting-json.js';
import { runIdArg } from '../args.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop priority <id> <N> [--json]';

/** shop priority <id> <N>: a queued run's new place in the queue (ConflictError, exit 6, once a worker took it). */
export default async function priority(args: CommandArgs<'priority'>, ctx: Context): Promise<number> {
  const id = runIdArg(args, USAGE);
  const raw = args.positionals[1];
  if (raw === undefined) throw new UsageError(`missing the new priority; usage: ${USAGE}`);
  if (!/^-?\d{1,7}$/.test(raw.trim()))
    throw new UsageError(`the priority ${JSON.stringify(raw)} must be a whole number (higher first)`);
  const by = responder(undefined, ctx.project.root, ctx.env);
  return acting(ctx, args, async (acted) => {
    acted.runId = id;
    const run = await (await ctx.ops()).setPriority(id, Number(raw), by, 'cli');
    ctx.out(`run ${run.id} (${run.spec}) now has priority ${run.priority} in the queue`);
    return 0;
  });
}
