import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PruneJsonSchema } from '../../packages/core/src/operations/shapes.js';
import { lines, makeProject, runId, until, type Project } from './harness.js';

const branches = (p: Project) => git(p, ['branch', '--list', '--format=%(refname:short)', 'shop/*']);

function git(p: Project, args: string[]): string {
  return execFileSync('git', args, { cwd: p.dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

const mode = (path: string) => statSync(path).mode & 0o777;

/** A git project with runs of each ending, one waiting, and a failed --worktree run (which keeps its worktree). */
function project(): { p: Project; completed: number; stuck: number; failed: number; waiting: number } {
  const p = makeProject();
  git(p, ['init', '-q', '-b', 'main']);
  git(p, ['config', 'user.email', 't@example.com']);
  git(p, ['config', 'user.name', 't']);
  git(p, ['config', 'commit.gpgsign', 'false']);
  p.write('workflows/ok.lua', 'function workflow(p)\n  return run("coder", "do it").summary\nend\n');
  p.write('workflows/stop.lua', 'function workflow(p)\n  stuck("no way")\nend\n');
  p.write('workflows/boom.lua', 'function workflow(p)\n  run("coder", "first")\n  error("boom")\nend\n');
  p.write('workflows/ask.lua', 'function workflow(p)\n  pause("Ship?")\nend\n');
  git(p, ['add', '-A']);
  git(p, ['commit', '-qm', 'init']);
  const completed = runId(p.shop(['run', 'ok']));
  const stuck = runId(p.shop(['run', 'stop']));
  const failedRun = p.shop(['run', '--worktree', 'boom']);
  expect(failedRun.code).toBe(1);
  const failed = runId(failedRun);
  const waiting = runId(p.shop(['run', 'ask']));
  return { p, completed, stuck, failed, waiting };
}

describe('shop prune', () => {
  it('--dry-run lists the ended runs and deletes nothing; then prune deletes them with logs, signals, worktree and branch, never a waiting run', () => {
    const { p, completed, stuck, failed, waiting } = project();
    const tree = join(p.dir, '.shop', 'worktrees', `run-${failed}`);
    expect(existsSync(tree)).toBe(true);
    expect(branches(p)).toBe(`shop/run-${failed}`);
    expect(existsSync(join(p.dir, '.shop', 'runs', String(completed)))).toBe(true);

    const dry = p.shop(['prune', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(lines(dry.stdout)).toEqual([
      expect.stringMatching(new RegExp(`^run ${completed} \\(ok, completed \\d+s ago\\): would delete$`)),
      expect.stringMatching(new RegExp(`^run ${stuck} \\(stop, stuck \\d+s ago\\): would delete$`)),
      expect.stringMatching(
        new RegExp(
          `^run ${failed} \\(boom, failed \\d+s ago\\): would delete with its worktree ${tree}, branch shop/run-${failed}$`,
        ),
      ),
      'would delete 3 runs (--dry-run: nothing was deleted)',
    ]);
    expect(p.list().map((r) => r.id)).toEqual([waiting, failed, stuck, completed]);

    const json = p.shop(['prune', '--status', 'completed,failed', '--json']);
    expect(json.code).toBe(0);
    const pruned = PruneJsonSchema.parse(JSON.parse(json.stdout));
    expect(pruned.map((r) => [r.id, r.outcome, r.worktree, r.branch, r.problems])).toEqual([
      [completed, 'deleted', null, null, []],
      [failed, 'deleted', tree, `shop/run-${failed}`, []],
    ]);
    expect(p.list().map((r) => r.id)).toEqual([waiting, stuck]);
    expect(existsSync(join(p.dir, '.shop', 'runs', String(completed)))).toBe(false);
    expect(existsSync(join(p.dir, '.shop', 'runs', String(failed)))).toBe(false);
    expect(
      readdirSync(join(p.dir, '.shop', 'signals')).filter(
        (f) => f.startsWith(`${completed}.`) || f.startsWith(`${failed}.`),
      ),
    ).toEqual([]);
    expect(existsSync(tree)).toBe(false);
    expect(branches(p)).toBe('');
    expect(p.shop(['status', String(completed)]).code).toBe(5);

    // The rest: the stuck run; the waiting run stays whatever is asked.
    const rest = p.shop(['prune']);
    expect(lines(rest.stdout).at(-1)).toBe('deleted 1 run');
    expect(p.list().map((r) => [r.id, r.status])).toEqual([[waiting, 'waiting_human']]);
    expect(lines(p.shop(['prune']).stdout)).toEqual(['nothing to prune: no run ended']);

    // Ids are never reused: a new run does not take a pruned run's number (nor its log folder).
    expect(runId(p.shop(['run', 'ok']))).toBe(waiting + 1);
  });

  it('--older-than keeps runs that ended more recently; bad durations and statuses are refused (exit 2)', () => {
    const p = makeProject();
    p.write('workflows/stop.lua', 'function workflow(p)\n  stuck("no way")\nend\n');
    const id = runId(p.shop(['run', 'stop']));
    expect(lines(p.shop(['prune', '--older-than', '1h']).stdout)).toEqual([
      'nothing to prune: no run ended more than 1h ago',
    ]);
    expect(p.list().map((r) => r.id)).toEqual([id]);
    for (const [args, message] of [
      [
        ['--older-than', '30'],
        'shop: --older-than "30" is not a duration; give a number and a unit, e.g. 30d, 12h, 90m, 45s, 2w',
      ],
      [
        ['--older-than', 'soon'],
        'shop: --older-than "soon" is not a duration; give a number and a unit, e.g. 30d, 12h, 90m, 45s, 2w',
      ],
      [
        ['--status', 'waiting_human'],
        'shop: --status "waiting_human" cannot be pruned; only ended runs can: completed, stuck, failed (comma-separated for several)',
      ],
    ] as const) {
      const r = p.shop(['prune', ...args]);
      expect(r.code).toBe(2);
      expect(lines(r.stderr)).toEqual([message]);
    }
    expect(lines(p.shop(['prune', '--older-than', '0s']).stdout).at(-1)).toBe('deleted 1 run');
  });

  it('a worktree folder someone deleted by hand: prune still deletes its branch (git forgets the worktree first), with no problem reported', () => {
    const { p, failed } = project();
    const worktree = p.status(failed).workspace;
    rmSync(worktree, { recursive: true, force: true });
    const r = p.shop(['prune', '--status', 'failed', '--json']);
    expect(r.code).toBe(0);
    const pruned = PruneJsonSchema.parse(JSON.parse(r.stdout));
    expect(pruned.map((x) => [x.id, x.outcome, x.branch, x.problems])).toEqual([
      [failed, 'deleted', `shop/run-${failed}`, []],
    ]);
    expect(branches(p)).toBe('');
    expect(git(p, ['worktree', 'list', '--porcelain'])).not.toContain(worktree);
  });
});

describe('private files', () => {
  it('the store, its -wal/-shm and agent logs are 0600, the .shop folders 0700', async () => {
    const p = makeProject();
    expect(runId(p.shop(['run', 'bugfix', 'x']))).toBe(1);
    // The -wal and -shm files live while a process holds the store open.
    p.write('workflows/ask.lua', 'function workflow(p)\n  pause("Ship?")\nend\n');
    const held = p.spawnShop(['run', 'ask', '--wait']);
    const home = join(p.dir, '.shop');
    try {
      await until(
        'the store to be held open',
        () => held.output().includes('waiting for a person') && existsSync(join(home, 'shop.db-shm')),
      );
      for (const dir of [home, join(home, 'runs'), join(home, 'signals'), join(home, 'runs', '1')])
        expect([dir, mode(dir)]).toEqual([dir, 0o700]);
      const files = ['shop.db', 'shop.db-wal', 'shop.db-shm'].map((f) => join(home, f));
      for (const log of readdirSync(join(home, 'runs', '1'))) files.push(join(home, 'runs', '1', log));
      expect(files.length).toBeGreaterThan(5);
      for (const f of files) expect([f, mode(f)]).toEqual([f, 0o600]);
    } finally {
      held.child.kill('SIGTERM');
      await held.exited;
    }
  });
});
