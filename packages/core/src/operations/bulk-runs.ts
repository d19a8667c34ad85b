import { ConflictError, UsageError } from '../errors.js';
import type { EnginePorts } from '../engine/ports.js';
import { storeLiveness } from '../engine/ownership.js';
import { displayStatus, type DisplayStatus } from '../run-status.js';
import { hasEnded, type Channel, type Run } from '../types.js';
import { stopRun } from './stop-run.js';

/** Which runs a bulk action takes: by status, workflow and age, or by id (the web's selection). */
export interface RunSelection {
  status?: DisplayStatus;
  workflow?: string;
  /** Started at most this long ago (ms). */
  sinceMs?: number;
  ids?: number[];
}

/** What a bulk action did (or, with dryRun, would do) to one run. */
export interface BulkOutcome {
  id: number;
  spec: string;
  /** As shown before the action. */
  status: DisplayStatus;
  outcome: 'requeued' | 'stopped' | 'would_requeue' | 'would_stop' | 'skipped';
  /** Why it was skipped, or how it ended when a stop came too late. */
  reason: string | null;
}

/** At most this many runs per bulk action: a filter that matches more is said, not half done. */
export const BULK_LIMIT = 10_000;

/** The runs a selection names, oldest first, each with how it is shown now (one liveness, by the store's clock). */
export async function selectRuns(ports: EnginePorts, sel: RunSelection): Promise<{ run: Run; shown: DisplayStatus }[]> {
  if (!sel.status && !sel.workflow && sel.sinceMs === undefined && !sel.ids?.length)
    throw new UsageError(
      'say which runs: --status S, --workflow W and/or --since D (a bulk action never takes every run)',
    );
  const liveness = storeLiveness(ports);
  const stored = sel.status === 'interrupted' ? 'running' : sel.status;
  const runs = sel.ids?.length
    ? (await Promise.all(sel.ids.slice(0, BULK_LIMIT + 1).map((id) => ports.store.getRun(id)))).filter(
        (r): r is Run => r !== null,
      )
    : await ports.store.listRuns({ ...(stored ? { status: stored } : {}), limit: BULK_LIMIT + 1 });
  const now = ports.store.now();
  const picked = runs
    .map((run) => ({ run, shown: displayStatus(run, liveness) }))
    .filter(({ shown }) => !sel.status || shown === sel.status)
    .filter(({ run }) => !sel.workflow || run.spec === sel.workflow)
    .filter(({ run }) => sel.sinceMs === undefined || now - run.createdAt <= sel.sinceMs)
    .sort((a, b) => a.run.id - b.run.id);
  if (picked.length > BULK_LIMIT)
    throw new ConflictError(`more than ${BULK_LIMIT} runs match; narrow it with --workflow or --since`);
  return picked;
}

/**
 * shop resume over a filter: every failed run, and every run whose driver is gone, is handed
 * back to the workers (queued again, its log kept: the worker replays it and goes on). The
 * rest are skipped, each with why. Nothing is driven in this process.
 */
export async function resumeRuns(
  ports: EnginePorts,
  sel: RunSelection,
  by: string,
  channel: Channel,
  dryRun: boolean,
): Promise<BulkOutcome[]> {
  const out: BulkOutcome[] = [];
  for (const { run, shown } of await selectRuns(ports, sel)) {
    const base = { id: run.id, spec: run.spec, status: shown };
    const why = resumable(run, shown);
    if (why) out.push({ ...base, outcome: 'skipped', reason: why });
    else if (dryRun) out.push({ ...base, outcome: 'would_requeue', reason: null });
    else if (await ports.store.requeue(run.id, by, channel)) out.push({ ...base, outcome: 'requeued', reason: null });
    else out.push({ ...base, outcome: 'skipped', reason: 'it changed meanwhile (a driver took it, or it ended)' });
  }
  return out;
}

function resumable(run: Run, shown: DisplayStatus): string | null {
  if (run.held) return `held: its rule files changed (shop resume ${run.id} --accept-changes)`;
  if (shown === 'failed' || shown === 'interrupted') return null;
  if (shown === 'completed' || shown === 'stuck') return `it ended ${shown}`;
  if (shown === 'running') return 'a live driver has it';
  return `it is ${shown.replace('_', ' ')}: it goes on by itself`;
}

/** shop stop over a filter: every run not ended is stopped (a queued one dequeued), one after another. */
export async function stopRuns(
  ports: EnginePorts,
  sel: RunSelection,
  reason: string,
  by: string,
  dryRun: boolean,
): Promise<BulkOutcome[]> {
  const out: BulkOutcome[] = [];
  for (const { run, shown } of await selectRuns(ports, sel)) {
    const base = { id: run.id, spec: run.spec, status: shown };
    if (hasEnded(run)) out.push({ ...base, outcome: 'skipped', reason: `it ended ${run.status}` });
    else if (dryRun) out.push({ ...base, outcome: 'would_stop', reason: null });
    else out.push({ ...base, ...(await stopOne(ports, run.id, reason, by)) });
  }
  return out;
}

/** One run of a bulk stop: stopped, or it ended first (its end said). */
async function stopOne(
  ports: EnginePorts,
  runId: number,
  reason: string,
  by: string,
): Promise<Pick<BulkOutcome, 'outcome' | 'reason'>> {
  try {
    const { run } = await stopRun(ports, runId, reason, by);
    return run.status === 'stuck'
      ? { outcome: 'stopped', reason: null }
      : { outcome: 'skipped', reason: `it ended ${run.status} first` };
  } catch (e) {
    // It ended between the read and the stop.
    if (e instanceof ConflictError) return { outcome: 'skipped', reason: e.message };
    throw e;
  }
}
