import { UsageError, responder } from '@shop/core';
import { acting } from '../acting-json.js';
import { priorityArg, runIdArg } from '../args.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop priority <id> <N> [--json]';

/** shop priority <id> <N>: a queued run's new place in the queue (ConflictError, exit 6, once a worker took it). */
export default async function priority(args: CommandArgs<'priority'>, ctx: Context): Promise<number> {
  const id = runIdArg(args, USAGE);
  const raw = args.positionals[1];
  if (raw === undefined) throw new UsageError(`missing the new priority; usage: ${USAGE}`);
  const priority = priorityArg(raw, 'the priority');
  const by = responder(undefined, ctx.project.root, ctx.env);
  return acting(ctx, args, async (acted) => {
    acted.runId = id;
    const run = await (await ctx.ops()).setPriority(id, priority, by, 'cli');
    ctx.out(`run ${run.id} (${run.spec}) now has priority ${run.priority} in the queue`);
    return 0;
  });
}
