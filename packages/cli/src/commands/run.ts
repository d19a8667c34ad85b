import { UsageError } from '@shop/core/errors';
import { responder } from '@shop/core/project/responder';
import { acting, type Acted } from '../acting-json.js';
import { flag } from '../args.js';
import type { Context } from '../context.js';
import { driveHere } from '../drive-here.js';
import type { Parsed } from '../registry.js';

/** shop run <workflow> [prompt…]: prints the run id at once, then drives the run here. */
export default async function run(args: Parsed, ctx: Context): Promise<number> {
  return acting(ctx, args, 'run', (acted) => startHere(args, ctx, acted));
}

async function startHere(args: Parsed, ctx: Context, acted: Acted): Promise<number> {
  const [name, ...words] = args.positionals;
  if (!name) throw new UsageError('missing workflow name; usage: shop run <workflow> [prompt…] (see workflows/*.lua)');
  const ops = await ctx.ops({ hints: flag(args, 'wait') });
  const req = { workflow: name, prompt: words.join(' '), worktree: flag(args, 'worktree'), actor: responder(undefined, ctx.project.root, ctx.env), channel: 'cli' as const };
  const { run, owner, worktree } = await ops.start(req, (created) => {
    acted.runId = created.id;
    ctx.out(`run ${created.id} started (${created.spec})`);
  });
  if (worktree) ctx.out(`  worktree ${worktree.path} on branch ${worktree.branch}`);
  return driveHere(ctx, ops, run.id, flag(args, 'wait'), owner);
}
