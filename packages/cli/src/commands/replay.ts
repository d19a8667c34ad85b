import { NotFoundError, UsageError, capText, displayStatus, quoted } from '@shop/core';
import type { ReplayCheck, ReplayJson, Run, ShopOperations } from '@shop/core';
import { existsSync, readFileSync } from 'node:fs';
import { basename, relative, resolve } from 'node:path';
import { runIdOf } from '../args.js';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';

const USAGE = 'shop replay [<id>… | --all] [--workflow F] [--json]';

/**
 * shop replay: each run's log replayed against its workflow file as it is now (or F), with
 * nothing run or written, so a changed workflow can be checked before runs resume under it.
 * Exit 0 when every run checked fits and none is held, 1 otherwise, 2 when --workflow names a file
 * no run not yet ended uses (nothing would be checked).
 */
export default async function replay(args: CommandArgs<'replay'>, ctx: Context): Promise<number> {
  const ids = args.positionals.map((raw) => runIdOf(raw, args.command, USAGE));
  if (ids.length && args.values.all) throw new UsageError(`give run ids or --all, not both; usage: ${USAGE}`);
  const file = args.values.workflow;
  const path = file === undefined ? undefined : resolve(ctx.cwd, file);
  if (path !== undefined && !existsSync(path)) throw new UsageError(`--workflow ${quoted(file!)}: no such file`);
  const source = path === undefined ? undefined : readFileSync(path, 'utf8');

  const ops = await ctx.ops();
  const runs = ids.length ? await Promise.all(ids.map((id) => mustRun(ops, id))) : await openRuns(ops, path);
  // A file no run uses would check nothing: saying "all fit" (exit 0) then would be a false pass.
  if (!runs.length && path) {
    throw new UsageError(
      `--workflow ${quoted(file!)}: no run that has not ended has a workflow named ${basename(path)}, so nothing was checked; give the runs to check against it (shop replay <id>… --workflow ${capText(file!)}), or name the file after the workflow it replaces`,
    );
  }
  const checks: ReplayCheck[] = [];
  for (const run of runs) checks.push(await ops.dryReplay(run.id, source));

  const liveness = ops.liveness;
  const shown = (p: string) => relative(ctx.cwd, p) || p;
  if (args.values.json) {
    printJson(
      ctx.out,
      checks.map((c) => ({
        run: c.run.id,
        spec: c.run.spec,
        status: displayStatus(c.run, liveness),
        workflow: shown(path ?? c.run.workflowPath),
        compatible: c.compatible,
        problem: c.problem,
        non_determinism: c.nonDeterminism && {
          key: c.nonDeterminism.key,
          recorded: c.nonDeterminism.recorded,
          now: c.nonDeterminism.attempted,
        },
        held: c.held,
      })) satisfies ReplayJson,
    );
  } else {
    if (!checks.length) ctx.out('no run that has not ended: nothing to check');
    for (const c of checks) {
      const head = `run ${c.run.id} (${c.run.spec}, ${displayStatus(c.run, liveness)}) against ${shown(path ?? c.run.workflowPath)}`;
      ctx.out(c.compatible ? `✓ ${head}: compatible` : `✗ ${head}: ${c.problem}`);
      if (c.held) ctx.out(`  held: ${c.held}`);
    }
    const bad = checks.filter((c) => !c.compatible).length;
    if (checks.length > 1) ctx.out(`${checks.length} runs checked: ${checks.length - bad} compatible, ${bad} not`);
  }
  return checks.every((c) => c.compatible && !c.held) ? 0 : 1;
}

async function mustRun(ops: ShopOperations, id: number): Promise<Run> {
  const run = await ops.run(id);
  if (!run) throw new NotFoundError(`no run ${id} (see shop list)`);
  return run;
}

/** Every run not yet ended, and every held one (they are the ones replayed on resume); with a file, those of its name. */
async function openRuns(ops: ShopOperations, path: string | undefined): Promise<Run[]> {
  const held = await ops.listRuns({ held: true });
  const open = await ops.openRuns();
  const runs = [...open, ...held.filter((h) => !open.some((r) => r.id === h.id))].sort((a, b) => a.id - b.id);
  return path === undefined ? runs : runs.filter((r) => basename(r.workflowPath) === basename(path));
}
