import { LuaWorkflow } from '@shop/core/lua/lua-workflow';
import { createRun } from '@shop/core/engine/drive';
import { UsageError } from '@shop/core/errors';
import { addWorktree, assertGitRepo } from '@shop/core/project/worktree';
import { resolveWorkflow } from '@shop/core/project/workflows';
import { responder } from '@shop/core/project/responder';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { flag } from '../args.js';
import type { Context } from '../context.js';
import { driveHere, enginePorts } from '../drive-here.js';
import type { Parsed } from '../registry.js';

/** shop run <workflow> [prompt…]: prints the run id at once, then drives the run here. */
export default async function run(args: Parsed, ctx: Context): Promise<number> {
  const [name, ...words] = args.positionals;
  if (!name) throw new UsageError('missing workflow name; usage: shop run <workflow> [prompt…] (see workflows/*.lua)');
  const wf = resolveWorkflow(ctx.project, name);
  // Bad Lua is bad input: refuse it before a run exists.
  const source = readFileSync(wf.path, 'utf8');
  new LuaWorkflow(source, basename(wf.path), { log() {}, context: () => ({}), config: () => null, random: Math.random, reseed() {} });
  if (flag(args, 'worktree')) assertGitRepo(ctx.project.root);

  const ports = await enginePorts(ctx);
  let run = await createRun(ports, {
    spec: wf.spec, workflowPath: wf.path, prompt: words.join(' '), workspace: ctx.project.root, actor: responder(undefined, ctx.project.root, ctx.env),
  });
  ctx.out(`run ${run.id} started (${run.spec})`);
  if (flag(args, 'worktree')) {
    const store = await ctx.store();
    try {
      const tree = addWorktree(ctx.project.root, ctx.project.worktreesDir, run.id);
      await store.setWorkspace(run.id, tree.path, tree.branch);
      ctx.out(`  worktree ${tree.path} on branch ${tree.branch}`);
    } catch (e) {
      await store.finishRun(run.id, 'failed', { reason: (e as Error).message }, { type: 'failed', actor: 'shop', channel: 'cli' });
      throw e;
    }
  }
  return driveHere(ctx, ports, run.id, flag(args, 'wait'));
}
