import { flag, runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { driveHere, enginePorts } from '../drive-here.js';
import type { Parsed } from '../registry.js';

/** shop resume <id>: replay the run from its log and drive it on (after a crash, or to retry a failure). */
export default async function resume(args: Parsed, ctx: Context): Promise<number> {
  const id = runIdArg(args, 'shop resume <id> [--wait]');
  return driveHere(ctx, await enginePorts(ctx), id, flag(args, 'wait'));
}
