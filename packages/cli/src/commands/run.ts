import { createRun } from '@shop/core/engine/drive-run';
import { UsageError } from '@shop/core/errors';
import { checkWorkflow } from '@shop/core/lua/check-workflow';
import { addWorktree, assertGitRepo } from '@shop/core/project/worktree';
import { resolveWorkflow } from '@shop/core/project/workflows';
import { responder } from '@shop/core/project/responder';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { acting, type Acted } from '../acting-json.js';
import { flag } from '../args.js';
import type { Context } from '../context.js';
import { driveHere, enginePorts } from '../drive-here.js';
import type { Parsed } from '../registry.js';

/** shop run <workflow> [prompt…]: prints the run id at once, then drives the run here. */
export default async function run(args: Parsed, ctx: Context): Promise<number> {
  return acting(ctx, args, 'run', (acted) => startRun(args, ctx, acted));
}

async function startRun(args: Parsed, ctx: Context, acted: Acted): Promise<number> {
  const [name, ...words] = args.positionals;
  if (!name) throw new UsageError('missing workflow name; usage: shop run <workflow> [prompt…] (see workflows/*.lua)');
  const wf = resolveWorkflow(ctx.project, name);
  // Bad Lua is bad input: refuse it before a run exists.
  checkWorkflow(readFileSync(wf.path, 'utf8'), basename(wf.path));
  if (flag(args, 'worktree')) assertGitRepo(ctx.project.root);

  const ports = await enginePorts(ctx, { hints: flag(args, 'wait') });
  const { run, owner } = await createRun(ports, {
    spec: wf.spec, workflowPath: wf.path, prompt: words.join(' '), workspace: ctx.project.root, actor: responder(undefined, ctx.project.root, ctx.env),
  });
  acted.runId = run.id;
  ctx.out(`run ${run.id} started (${run.spec})`);
  if (flag(args, 'worktree')) {
    try {
      const tree = addWorktree(ctx.project.root, ctx.project.worktreesDir, run.id);
      await ports.store.setWorkspace(owner.token, run.id, tree.path, tree.branch);
      ctx.out(`  worktree ${tree.path} on branch ${tree.branch}`);
    } catch (e) {
      const reason = (e as Error).message;
      await ports.store.finishRun(owner.token, run.id, { status: 'failed', reason, event: { type: 'failed', actor: 'shop', channel: 'cli', data: { reason } } });
      await owner.release(false);
      throw e;
    }
  }
  return driveHere(ctx, ports, run.id, flag(args, 'wait'), owner);
}
