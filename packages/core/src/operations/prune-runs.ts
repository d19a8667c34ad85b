import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Project } from '../project/project.js';
import { isRunWorktree, removeWorktreeAndBranch } from '../project/worktree.js';
import type { Store } from '../store/store.js';
import { endedStatuses, type Run, type RunStatus } from '../types.js';

export interface PruneOptions {
  /** Only runs that ended at least this long ago (ms); undefined: any ended run. */
  olderThanMs?: number;
  /** Only runs ending in these statuses (each one of completed, stuck, failed). */
  statuses: readonly RunStatus[];
  /** List what would go, delete nothing. */
  dryRun: boolean;
  now: number;
}

export interface PrunedRun {
  id: number;
  spec: string;
  status: RunStatus;
  endedAt: number;
  /** deleted; would_delete (--dry-run); skipped: a driver took it or it changed meanwhile. */
  outcome: 'deleted' | 'would_delete' | 'skipped';
  /** The worktree and branch removed with it, if it had them. */
  worktree: string | null;
  branch: string | null;
  /** What could not be removed (a file, a branch), the run's rows being gone all the same. */
  problems: string[];
}

/**
 * shop prune: ended runs (never one still running or waiting, never one a live driver holds)
 * with their store rows (one transaction per run), logs, signal files, worktree and branch.
 * Rows go first: once they are, nothing can resume the run, and its id is never used again,
 * so leftover files cannot mix with a new run's.
 */
export async function pruneRuns(store: Store, project: Project, opts: PruneOptions): Promise<PrunedRun[]> {
  const statuses = opts.statuses.filter((s) => endedStatuses.includes(s));
  const candidates: Run[] = [];
  for (const status of statuses) candidates.push(...(await store.listRuns({ status })));
  const due = candidates
    .filter((r) => r.endedAt !== null && (opts.olderThanMs === undefined || opts.now - r.endedAt >= opts.olderThanMs))
    .sort((a, b) => a.id - b.id);
  const out: PrunedRun[] = [];
  for (const run of due) {
    const recorded = run.branch && isRunWorktree(project.worktreesDir, run.workspace) ? run.workspace : null;
    const worktree = recorded && existsSync(recorded) ? recorded : null;
    const base = {
      id: run.id,
      spec: run.spec,
      status: run.status,
      endedAt: run.endedAt!,
      worktree,
      branch: run.branch,
      problems: [] as string[],
    };
    if (opts.dryRun) {
      out.push({ ...base, outcome: 'would_delete' });
      continue;
    }
    const signalPaths = (await store.loadExecutions(run.id)).map((e) => e.signalPath).filter((p): p is string => !!p);
    const done = await store.deleteRun(run.id);
    if (done !== 'deleted') {
      out.push({ ...base, outcome: done === 'missing' ? 'deleted' : 'skipped' });
      continue;
    }
    // A folder deleted by hand still has git's record of the worktree, which holds the branch:
    // removing the worktree by its recorded path clears that record too.
    out.push({ ...base, outcome: 'deleted', problems: removeFiles(project, run, signalPaths, recorded) });
  }
  return out;
}

function removeFiles(project: Project, run: Run, signalPaths: string[], worktree: string | null): string[] {
  const problems: string[] = [];
  const remove = (path: string) => {
    try {
      rmSync(path, { recursive: true, force: true });
    } catch (e) {
      problems.push(`${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  remove(join(project.runsDir, String(run.id)));
  let names: string[] = [];
  try {
    names = readdirSync(project.signalsDir);
  } catch {
    /* no signals folder: nothing to remove */
  }
  // Signal files are named after their run first ("<run>.<call>.<agent>.json" and its temp files).
  for (const name of names) if (name.startsWith(`${run.id}.`)) remove(join(project.signalsDir, name));
  for (const path of signalPaths) if (path.startsWith(project.signalsDir)) remove(path);
  // Only the branch Shop made for this run (shop/run-<id>), never one a person named.
  const branch = run.branch === `shop/run-${run.id}` ? run.branch : null;
  if (worktree || branch) problems.push(...removeWorktreeAndBranch(project.root, worktree, branch));
  return problems;
}
