import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lines, makeProject, runId, type Project } from './harness.js';

function git(p: Project, args: string[]): string {
  return execFileSync('git', args, { cwd: p.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** A project in a git repository with one commit. */
function repo(): Project {
  const p = makeProject();
  git(p, ['init', '-q', '-b', 'main']);
  git(p, ['config', 'user.email', 'tester@example.com']);
  git(p, ['config', 'user.name', 'tester']);
  git(p, ['config', 'commit.gpgsign', 'false']);
  git(p, ['add', '-A']);
  git(p, ['commit', '-q', '-m', 'shop init']);
  return p;
}

describe('shop run --worktree', () => {
  it('runs the agents in .shop/worktrees/run-<id> on branch shop/run-<id>; keep_worktree keeps it after the end', () => {
    const p = repo();
    p.write('workflows/bugfix.lua', `config{ keep_worktree = true }\n${p.read('workflows/bugfix.lua')}`);
    git(p, ['commit', '-qam', 'keep']);
    const head = git(p, ['rev-parse', 'HEAD']);

    const r = p.shop(['run', '--worktree', 'bugfix', 'x']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const id = runId(r);
    const tree = join(p.dir, '.shop', 'worktrees', `run-${id}`);
    const branch = `shop/run-${id}`;
    expect(lines(r.stdout)[1]).toBe(`  worktree ${tree} on branch ${branch}`);
    expect(r.stdout).toContain(`run ${id} completed`);
    expect(lines(r.stdout).at(-1)).toBe(
      `  worktree kept: ${tree} (keep_worktree = true; shop prune removes it with the run)`,
    );

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
      `shop: --worktree needs a git repository; ${p.dir} is not one (run git init and commit, or drop --worktree)`,
    ]);
    expect(p.list()).toEqual([]);
    expect(p.invocations()).toEqual([]);
    expect(existsSync(join(p.dir, '.shop', 'worktrees'))).toBe(false);
  });

  it('in a repository with no commits it says so and what to do (exit 2)', () => {
    const p = makeProject();
    git(p, ['init', '-q', '-b', 'main']);
    const r = p.shop(['run', '--worktree', 'bugfix', 'x']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([
      `shop: --worktree needs a commit to branch from; the git repository at ${p.dir} has no commits yet (commit once, e.g. git add -A && git commit -m init, or drop --worktree)`,
    ]);
    expect(p.list()).toEqual([]);
  });

  it("removes a completed run's clean worktree (its branch stays); keeps one holding uncommitted work", () => {
    const p = repo();
    const clean = p.shop(['run', '--worktree', 'bugfix', 'x']);
    expect(clean.code).toBe(0);
    const id = runId(clean);
    expect(existsSync(join(p.dir, '.shop', 'worktrees', `run-${id}`))).toBe(false);
    expect(git(p, ['worktree', 'list']).split('\n')).toHaveLength(1);
    expect(git(p, ['branch', '--list', `shop/run-${id}`])).toBe(`shop/run-${id}`);

    // An agent that leaves a file behind: its work is not thrown away.
    p.write('workflows/dirty.lua', 'function workflow(p)\n  sh("echo work > left.txt")\n  return "ok"\nend\n');
    git(p, ['add', '-A']);
    git(p, ['commit', '-qm', 'dirty']);
    const dirty = p.shop(['run', '--worktree', 'dirty']);
    expect(dirty.code).toBe(0);
    const tree = join(p.dir, '.shop', 'worktrees', `run-${runId(dirty)}`);
    expect(existsSync(join(tree, 'left.txt'))).toBe(true);
    // Kept, and the person is told where and why (not silently left behind).
    expect(lines(dirty.stdout).at(-1)).toBe(
      `  worktree kept: ${tree} holds work not committed; look at it there (shop prune removes it with the run)`,
    );
    expect(clean.stdout).not.toContain('worktree kept');
  });
});
