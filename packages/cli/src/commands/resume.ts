import { acting } from '../acting-json.js';
import { flag, runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { driveHere } from '../drive-here.js';
import type { Parsed } from '../registry.js';

/** shop resume <id>: replay the run from its log and drive it on (after a crash, or to retry a failure). */
export default async function resume(args: Parsed, ctx: Context): Promise<number> {
  const id = runIdArg(args, 'shop resume <id> [--wait] [--json]');
  return acting(ctx, args, 'resume', async (acted) => {
    acted.runId = id;
    return driveHere(ctx, await ctx.ops({ hints: flag(args, 'wait') }), id, flag(args, 'wait'));
  });
}
