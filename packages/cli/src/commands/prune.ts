import { UsageError, endedStatuses, parseDuration, quoted } from '@shop/core';
import type { PruneJson, PrunedRun, RunStatus } from '@shop/core';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import type { CommandArgs } from '../registry.js';
import { ago } from '../table.js';

/**
 * shop prune [--older-than D] [--status S] [--dry-run] [--json]: deletes ended runs (completed,
 * stuck, failed) with their rows, logs, signal files, worktree and branch. Never a run still
 * running or waiting, never one a live driver holds.
 */
export default async function prune(args: CommandArgs<'prune'>, ctx: Context): Promise<number> {
  const olderThan = args.values['older-than'];
  const olderThanMs = olderThan === undefined ? undefined : parseDuration(olderThan);
  if (olderThanMs === null)
    throw new UsageError(
      `--older-than ${quoted(olderThan!)} is not a duration; give a number and a unit, e.g. 30d, 12h, 90m, 45s, 2w`,
    );
  const statuses = statusesArg(args.values.status);
  const dryRun = args.values['dry-run'];
  const pruned = await (await ctx.ops()).prune({ olderThanMs, statuses, dryRun, now: Date.now() });
  if (args.values.json) {
    printJson(ctx.out, pruned.map(prunedJson));
    return 0;
  }
  for (const r of pruned) ctx.out(prunedLine(r));
  const deleted = pruned.filter((r) => r.outcome !== 'skipped').length;
  const what = olderThan ? ` ended more than ${olderThan} ago` : ' ended';
  if (!pruned.length)
    ctx.out(`nothing to prune: no run${statuses.length < 3 ? ` ${statuses.join(' or ')}` : ''}${what}`);
  else
    ctx.out(
      `${dryRun ? 'would delete' : 'deleted'} ${deleted} run${deleted === 1 ? '' : 's'}${dryRun ? ' (--dry-run: nothing was deleted)' : ''}`,
    );
  return 0;
}

/** --status completed (or stuck, failed; comma-separated for several); default all three. */
function statusesArg(raw: string | undefined): RunStatus[] {
  if (raw === undefined) return [...endedStatuses];
  const given = raw.split(',').map((s) => s.trim());
  for (const s of given) {
    if (!(endedStatuses as readonly string[]).includes(s)) {
      throw new UsageError(
        `--status ${quoted(s)} cannot be pruned; only ended runs can: ${endedStatuses.join(', ')} (comma-separated for several)`,
      );
    }
  }
  return given as RunStatus[];
}

function prunedLine(r: PrunedRun): string {
  const verb = { deleted: 'deleted', would_delete: 'would delete', skipped: 'skipped (a driver holds it again)' }[
    r.outcome
  ];
  const extra = [r.worktree ? `worktree ${r.worktree}` : '', r.branch ? `branch ${r.branch}` : '']
    .filter(Boolean)
    .join(', ');
  const problems = r.problems.length ? `; left: ${r.problems.join('; ')}` : '';
  return `run ${r.id} (${r.spec}, ${r.status} ${ago(r.endedAt)} ago): ${verb}${extra ? ` with its ${extra}` : ''}${problems}`;
}

function prunedJson(r: PrunedRun): PruneJson[number] {
  return {
    id: r.id,
    spec: r.spec,
    status: r.status as PruneJson[number]['status'],
    ended_at: new Date(r.endedAt).toISOString(),
    outcome: r.outcome,
    worktree: r.worktree,
    branch: r.branch,
    problems: r.problems,
  };
}
