import { UsageError, responder } from '@shop/core';
import { acting, type Acted } from '../acting-json.js';
import type { Context } from '../context.js';
import { driveHere } from '../drive-here.js';
import type { CommandArgs } from '../registry.js';
import { readTextInput } from '../text-input.js';

/** shop run <workflow> [prompt…]: prints the run id at once, then drives the run here. */
export default async function run(args: CommandArgs<'run'>, ctx: Context): Promise<number> {
  return acting(ctx, args, (acted) => startHere(args, ctx, acted));
}

const USAGE = 'shop run <workflow> [prompt… | - | --prompt-file F]';

async function startHere(args: CommandArgs<'run'>, ctx: Context, acted: Acted): Promise<number> {
  const [name, ...words] = args.positionals;
  if (!name) throw new UsageError(`missing workflow name; usage: ${USAGE} (see workflows/*.lua)`);
  const prompt = await promptOf(words, args.values['prompt-file']);
  const ops = await ctx.ops({ hints: args.values.wait });
  const req = {
    workflow: name,
    prompt,
    worktree: args.values.worktree,
    actor: responder(undefined, ctx.project.root, ctx.env),
    channel: 'cli' as const,
  };
  const { run, owner, worktree } = await ops.start(req, (created) => {
    acted.runId = created.id;
    ctx.out(`run ${created.id} started (${created.spec})`);
  });
  if (worktree) ctx.out(`  worktree ${worktree.path} on branch ${worktree.branch}`);
  return driveHere(ctx, ops, run.id, args.values.wait, owner);
}

/**
 * The prompt: the words after the workflow, or — when it is longer than a command line takes —
 * a file (--prompt-file F) or stdin (a lone `-`, or --prompt-file -).
 */
async function promptOf(words: string[], file: string | undefined): Promise<string> {
  const fromStdin = words.length === 1 && words[0] === '-';
  if (file !== undefined && words.length)
    throw new UsageError(`give the prompt as words, as --prompt-file F or as - (stdin), not both; usage: ${USAGE}`);
  if (file !== undefined || fromStdin) return readTextInput(file ?? '-', '--prompt-file', 'the prompt');
  return words.join(' ');
}
