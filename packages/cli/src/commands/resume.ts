import { UsageError, responder } from '@shop/core';
import { acting } from '../acting-json.js';
import { runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { driveHere } from '../drive-here.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop resume <id> [--accept-changes [--by NAME]] [--wait] [--json]';

/**
 * shop resume <id>: replay the run from its log and drive it on (after a crash, or to retry a
 * failure). --accept-changes: a person takes the rule files as they are now — their rules from
 * now on, and a held run goes on.
 */
export default async function resume(args: CommandArgs<'resume'>, ctx: Context): Promise<number> {
  const id = runIdArg(args, USAGE);
  if (args.values.by !== undefined && !args.values['accept-changes'])
    throw new UsageError(`--by names who accepts changes: it goes with --accept-changes; usage: ${USAGE}`);
  const accept = args.values['accept-changes']
    ? { by: responder(args.values.by, ctx.project.root, ctx.env), channel: 'cli' as const }
    : undefined;
  return acting(ctx, args, async (acted) => {
    acted.runId = id;
    return driveHere(ctx, await ctx.ops({ hints: args.values.wait }), id, args.values.wait, undefined, accept);
  });
}
