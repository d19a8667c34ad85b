import { UsageError, responder } from '@shop/core';
import { acting } from '../acting-json.js';
import { runIdArg } from '../args.js';
import type { Context } from '../context.js';
import { driveHere } from '../drive-here.js';
import type { CommandArgs } from '../registry.js';
import { isBulk, printBulk, selectionOf } from './bulk.js';

const USAGE = 'shop resume <id> [--accept-changes [--by NAME]] [--wait] [--json]';
const BULK = 'shop resume --status S [--workflow W] [--since D] [--dry-run] [--json]';

/** shop resume over a filter: failed and driverless runs handed back to the workers. */
async function resumeMany(args: CommandArgs<'resume'>, ctx: Context): Promise<number> {
  if (args.positionals.length) throw new UsageError(`give a run id or a filter, not both; usage: ${BULK}`);
  for (const flag of ['accept-changes', 'wait'] as const)
    if (args.values[flag]) throw new UsageError(`--${flag} is for one run (shop resume <id>); usage: ${BULK}`);
  const sel = selectionOf(args.values, BULK);
  const by = responder(args.values.by, ctx.project.root, ctx.env);
  const dryRun = Boolean(args.values['dry-run']);
  const outcomes = await (await ctx.ops()).resumeRuns(sel, by, 'cli', dryRun);
  printBulk(ctx, outcomes, dryRun, args.values.json);
  return 0;
}

/**
 * shop resume <id>: replay the run from its log and drive it on (after a crash, or to retry a
 * failure). --accept-changes: a person takes the rule files as they are now — their rules from
 * now on, and a held run goes on.
 */
export default async function resume(args: CommandArgs<'resume'>, ctx: Context): Promise<number> {
  if (isBulk(args.values)) return resumeMany(args, ctx);
  if (args.values['dry-run'])
    throw new UsageError(`--dry-run goes with a filter (--status, --workflow, --since); usage: ${BULK}`);
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
