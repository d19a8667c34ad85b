import { execFileSync } from 'node:child_process';
import { join, relative, isAbsolute } from 'node:path';
import { UsageError } from '../errors.js';

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Fails with a clear line when `dir` is not inside a git work tree, or is one with no commit yet. */
export function assertGitRepo(dir: string): void {
  try {
    git(dir, ['rev-parse', '--is-inside-work-tree']);
  } catch {
    throw new UsageError(
      `--worktree needs a git repository; ${dir} is not one (run git init and commit, or drop --worktree)`,
    );
  }
  try {
    git(dir, ['rev-parse', '--verify', 'HEAD']);
  } catch {
    // A worktree branches from HEAD: a repository whose first commit is still to be made has none.
    throw new UsageError(
      `--worktree needs a commit to branch from; the git repository at ${dir} has no commits yet (commit once, e.g. git add -A && git commit -m init, or drop --worktree)`,
    );
  }
}

/** Adds `.shop/worktrees/run-<id>` on branch `shop/run-<id>` and returns both. */
export function addWorktree(repoDir: string, worktreesDir: string, runId: number): { path: string; branch: string } {
  const path = join(worktreesDir, `run-${runId}`);
  const branch = `shop/run-${runId}`;
  try {
    git(repoDir, ['worktree', 'add', '-b', branch, path, 'HEAD']);
  } catch (e) {
    throw new UsageError(`could not create worktree ${path}: ${gitError(e)}`);
  }
  return { path, branch };
}

/** Whether `path` is a run's worktree folder under `worktreesDir` (never the project itself). */
export function isRunWorktree(worktreesDir: string, path: string): boolean {
  const rel = relative(worktreesDir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) && /^run-\d+$/.test(rel);
}

/**
 * An ended run's worktree, removed unless it holds work not committed (git refuses then, and
 * the folder stays for the person to look at). Its branch stays: it holds the run's commits.
 * Returns null when removed (or already gone), otherwise why it stayed.
 */
export function removeCleanWorktree(repoDir: string, path: string): string | null {
  try {
    git(repoDir, ['worktree', 'remove', path]);
    return null;
  } catch (e) {
    const why = gitError(e);
    return /is not a working tree|does not exist/.test(why) ? null : why;
  }
}

/** `shop prune`: the worktree (whatever it holds) and the run's branch, gone. Errors are returned, not thrown. */
export function removeWorktreeAndBranch(repoDir: string, path: string | null, branch: string | null): string[] {
  const problems: string[] = [];
  if (path) {
    try {
      git(repoDir, ['worktree', 'remove', '--force', '--force', path]);
    } catch (e) {
      const why = gitError(e);
      if (!/is not a working tree|does not exist/.test(why)) problems.push(`worktree ${path}: ${why}`);
    }
  }
  if (branch) {
    try {
      git(repoDir, ['branch', '-D', branch]);
    } catch (e) {
      const why = gitError(e);
      if (!/not found/.test(why)) problems.push(`branch ${branch}: ${why}`);
    }
  }
  return problems;
}

const gitError = (e: unknown) =>
  String((e as { stderr?: string }).stderr || (e as Error).message || e)
    .trim()
    .split('\n')
    .pop() ?? '';
