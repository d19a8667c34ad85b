import { UsageError, responder } from '@shop/core';
import { acting } from '../acting-json.js';
import { runIdArg } from '../args.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';
import { isBulk, printBulk, selectionOf } from './bulk.js';

/**
 * shop stop <id> --reason R: records the stop; the run's driver (if one is live) kills its
 * agents and ends the run stuck within about a second, otherwise it is ended here.
 */
export default async function stop(args: CommandArgs<'stop'>, ctx: Context): Promise<number> {
  if (isBulk(args.values)) return stopMany(args, ctx);
  if (args.values['dry-run'])
    throw new UsageError(`--dry-run goes with a filter (--workflow, --status, --since); usage: ${BULK}`);
  const id = runIdArg(args, 'shop stop <id> --reason R');
  return acting(ctx, args, async (acted) => {
    acted.runId = id;
    return stopHere(args, ctx, id);
  });
}

const BULK = 'shop stop (--workflow W | --status S | --since D)… --reason R [--dry-run] [--json]';

/** shop stop over a filter: every run not ended stopped, one after another; --reason required (it is many runs). */
async function stopMany(args: CommandArgs<'stop'>, ctx: Context): Promise<number> {
  if (args.positionals.length) throw new UsageError(`give a run id or a filter, not both; usage: ${BULK}`);
  const sel = selectionOf(args.values, BULK);
  if (args.values.reason === undefined)
    throw new UsageError(`stopping many runs needs --reason R (it is recorded on each); usage: ${BULK}`);
  const by = responder(args.values.by, ctx.project.root, ctx.env);
  const dryRun = Boolean(args.values['dry-run']);
  const outcomes = await (await ctx.ops()).stopRuns(sel, args.values.reason, by, dryRun);
  printBulk(ctx, outcomes, dryRun, args.values.json);
  return 0;
}

async function stopHere(args: CommandArgs<'stop'>, ctx: Context, id: number): Promise<number> {
  const by = responder(args.values.by, ctx.project.root, ctx.env);
  const reason = args.values.reason ?? `stopped by ${by}`;
  const ops = await ctx.ops();
  const { run, children, parent } = await ops.stop(id, reason, by, (owner) =>
    ctx.out(`asking ${ops.describeOwner(owner)}, which drives run ${id}, to stop it…`),
  );
  ctx.out(
    run.status === 'stuck'
      ? `Run ${id} marked as stuck: ${run.reason ?? reason}`
      : `Run ${id} ended ${run.status} before the stop took effect${run.reason ? `: ${run.reason}` : ''}`,
  );
  if (parent)
    ctx.out(
      `  its parent run ${parent.id} (${parent.spec}) went on: ${parent.status}${parent.reason ? `: ${parent.reason}` : ''}`,
    );
  for (const child of children)
    ctx.out(
      `  its child run ${child.id} (${child.spec}) stopped with it${child.status === 'stuck' ? '' : ` (it ended ${child.status} first)`}`,
    );
  return 0;
}
