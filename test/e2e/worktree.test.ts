import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, type Project } from './harness.js';

function git(p: Project, args: string[]): string {
  return execFileSync('git', args, { cwd: p.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

describe('shop run --worktree', () => {
  it('runs the agents in .shop/worktrees/run-<id> on branch shop/run-<id>', () => {
    const p = makeProject();
    git(p, ['init', '-q', '-b', 'main']);
    git(p, ['config', 'user.email', 'tester@example.com']);
    git(p, ['config', 'user.name', 'tester']);
    git(p, ['add', '-A']);
    git(p, ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'shop init']);
    const head = git(p, ['rev-parse', 'HEAD']);

    const r = p.shop(['run', '--worktree', 'bugfix', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    const tree = join(p.dir, '.shop', 'worktrees', `run-${id}`);
    const branch = `shop/run-${id}`;
    expect(lines(r.stdout)[1]).toBe(`  worktree ${tree} on branch ${branch}`);
    expect(r.stdout).toContain(`run ${id} completed`);

    // Every agent worked in the worktree, not in the project folder.
    const calls = p.invocations();
    expect(calls).toHaveLength(4);
    expect(new Set(calls.map((c) => c.cwd))).toEqual(new Set([tree]));
    expect(existsSync(join(tree, 'workflows', 'bugfix.lua'))).toBe(true);

    // The branch exists, starts at HEAD, and is checked out in the worktree.
    expect(git(p, ['rev-parse', '--verify', branch])).toBe(head);
    expect(execFileSync('git', ['branch', '--show-current'], { cwd: tree, encoding: 'utf8' }).trim()).toBe(branch);
    expect(git(p, ['branch', '--show-current'])).toBe('main');

    const s = p.status(id);
    expect(s).toMatchObject({ status: 'completed', workspace: tree, branch });
    expect(s.executions.every((e) => e.cwd === tree)).toBe(true);
  });

  it('outside a git repository it refuses with one line (exit 2) and creates no run', () => {
    const p = makeProject();
    const r = p.shop(['run', '--worktree', 'bugfix', 'x']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(lines(r.stderr)).toEqual([
      `shop: --worktree needs a git repository with at least one commit; ${p.dir} is not one (run git init and commit, or drop --worktree)`,
    ]);
    expect(p.list()).toEqual([]);
    expect(p.invocations()).toEqual([]);
    expect(existsSync(join(p.dir, '.shop', 'worktrees'))).toBe(false);
  });
});
