import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newFlow } from '../engine/testing/flow.js';
import type { ScriptedWorld } from '../engine/testing/scripted-ports.js';
import { NotFoundError, UsageError } from '../errors.js';
import { findProject } from '../project/project.js';
import { shopOperations } from './shop-operations.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

const SOURCE = 'function workflow(p)\n  return p\nend\n';

/** A project folder with workflows/echo.lua (a git repository when `git`), and core's operations over a scripted world there. */
function project(git: boolean) {
  const f = newFlow('shop-start-');
  worlds.push(f.world);
  mkdirSync(join(f.dir, 'workflows'));
  const path = join(f.dir, 'workflows', 'echo.lua');
  writeFileSync(path, SOURCE);
  f.world.workflows.set(path, SOURCE);
  if (git) {
    const g = (...args: string[]) => execFileSync('git', args, { cwd: f.dir, stdio: 'pipe' });
    g('init', '-q', '-b', 'main');
    g('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'init');
  }
  const ops = shopOperations(f.world.ports, findProject(f.dir, {}), { agentStep: null });
  return { ...f, ops, git: (...args: string[]) => execFileSync('git', args, { cwd: f.dir, stdio: 'pipe' }) };
}

const req = (over: Partial<{ workflow: string; worktree: boolean }> = {}) => ({
  workflow: 'echo',
  prompt: 'hi',
  worktree: false,
  actor: 'ann',
  channel: 'cli' as const,
  ...over,
});

describe('start (shop run)', () => {
  it('creates the run owned by this process, tells the caller at once, and drives it to the end', async () => {
    const { ops } = project(false);
    const told: number[] = [];
    const { run, owner, worktree } = await ops.start(req(), (r) => told.push(r.id));
    expect(told).toEqual([run.id]);
    expect(worktree).toBeNull();
    expect(await ops.drive(run.id, { wait: false }, owner)).toEqual({ status: 'completed', result: 'hi' });
  });

  it('refuses an unknown workflow and bad Lua before any run exists', async () => {
    const { ops, dir } = project(false);
    await expect(ops.start(req({ workflow: 'nope' }))).rejects.toThrow(NotFoundError);
    writeFileSync(join(dir, 'workflows', 'bad.lua'), 'function workflow(p) return end end\n');
    await expect(ops.start(req({ workflow: 'bad' }))).rejects.toThrow(UsageError);
    expect(await ops.listRuns()).toEqual([]);
  });

  it('--worktree gives the run its own worktree and branch', async () => {
    const { ops, dir } = project(true);
    const { run, worktree } = await ops.start(req({ worktree: true }));
    expect(worktree).toEqual({ path: join(dir, '.shop', 'worktrees', `run-${run.id}`), branch: `shop/run-${run.id}` });
    expect(await ops.run(run.id)).toMatchObject({ workspace: worktree!.path, branch: worktree!.branch });
  });

  it('a worktree that cannot be made fails the run it was for, and lets it go', async () => {
    const { ops, git } = project(true);
    // The branch the next run would get is taken already.
    git('branch', 'shop/run-1');
    const told: number[] = [];
    await expect(ops.start(req({ worktree: true }), (r) => told.push(r.id))).rejects.toThrow(
      /could not create worktree/,
    );
    expect(told).toEqual([1]);
    const run = await ops.run(1);
    expect(run).toMatchObject({ status: 'failed', owner: null });
    expect(run!.reason).toMatch(/could not create worktree/);
    expect((await ops.events(1)).map((e) => [e.type, e.actor, e.channel])).toContainEqual(['failed', 'shop', 'cli']);
  });
});
