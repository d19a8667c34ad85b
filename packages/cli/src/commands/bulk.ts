import { UsageError, displayStatuses, parseDuration, quoted, type BulkOutcome, type RunSelection } from '@shop/core';
import type { Context } from '../context.js';
import { printJson } from '../json.js';
import { suggest } from '../suggest.js';

/** The filter flags of shop resume / shop stop over many runs. */
export interface BulkFlags {
  status?: string;
  workflow?: string;
  since?: string;
  'dry-run'?: boolean;
  json?: boolean;
}

/** Whether a command was given a filter instead of one run's id. */
export const isBulk = (v: BulkFlags) => v.status !== undefined || v.workflow !== undefined || v.since !== undefined;

/** The flags as a selection, each checked (one line, exit 2). */
export function selectionOf(v: BulkFlags, usage: string): RunSelection {
  const sel: RunSelection = {};
  if (v.status !== undefined) {
    if (!(displayStatuses as readonly string[]).includes(v.status)) {
      const meant = suggest(v.status, displayStatuses);
      throw new UsageError(
        `--status ${quoted(v.status)} is not a run status${meant ? `; did you mean "${meant}"?` : ''} (one of ${displayStatuses.join(', ')})`,
      );
    }
    sel.status = v.status as RunSelection['status'];
  }
  if (v.workflow !== undefined) {
    if (!/^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/.test(v.workflow))
      throw new UsageError(`--workflow ${quoted(v.workflow)} is not a workflow name; usage: ${usage}`);
    sel.workflow = v.workflow;
  }
  if (v.since !== undefined) {
    const ms = parseDuration(v.since);
    if (ms === null)
      throw new UsageError(`--since ${quoted(v.since)} is not a duration; give a number and a unit, e.g. 2h, 30m, 1d`);
    sel.sinceMs = ms;
  }
  return sel;
}

const WORDS: Record<BulkOutcome['outcome'], string> = {
  requeued: 'queued again for the workers',
  would_requeue: 'would be queued again',
  stopped: 'stopped',
  would_stop: 'would be stopped',
  skipped: 'skipped',
};

/** One line per run (or the JSON document), then what it came to. */
export function printBulk(ctx: Context, outcomes: BulkOutcome[], dryRun: boolean, json: boolean | undefined): void {
  if (json) return printJson(ctx.out, { dry_run: dryRun, runs: outcomes });
  if (!outcomes.length) return ctx.out('no runs match');
  for (const o of outcomes)
    ctx.out(`run ${o.id} (${o.spec}, ${o.status}): ${WORDS[o.outcome]}${o.reason ? `: ${o.reason}` : ''}`);
  const acted = outcomes.filter((o) => o.outcome !== 'skipped').length;
  ctx.out(
    `${acted} of ${outcomes.length} run${outcomes.length === 1 ? '' : 's'}${dryRun ? ' (dry run: nothing changed)' : ''}`,
  );
}
