import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { UsageError } from '../errors.js';

function git(cwd: string, args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** Fails with a clear line when `dir` is not inside a git work tree with a commit. */
export function assertGitRepo(dir: string): void {
  try {
    git(dir, ['rev-parse', '--verify', 'HEAD']);
  } catch {
    throw new UsageError(`--worktree needs a git repository with at least one commit; ${dir} is not one (run git init and commit, or drop --worktree)`);
  }
}

/** Adds `.shop/worktrees/run-<id>` on branch `shop/run-<id>` and returns both. */
export function addWorktree(repoDir: string, worktreesDir: string, runId: number): { path: string; branch: string } {
  const path = join(worktreesDir, `run-${runId}`);
  const branch = `shop/run-${runId}`;
  try {
    git(repoDir, ['worktree', 'add', '-b', branch, path, 'HEAD']);
  } catch (e) {
    const stderr = String((e as { stderr?: string }).stderr ?? e).trim().split('\n').pop();
    throw new UsageError(`could not create worktree ${path}: ${stderr}`);
  }
  return { path, branch };
}
