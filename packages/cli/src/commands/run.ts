import { UsageError, responder } from '@shop/core';
import { acting, type Acted } from '../acting-json.js';
import type { Context } from '../context.js';
import { driveHere } from '../drive-here.js';
import type { CommandArgs } from '../registry.js';
import { priorityArg } from '../args.js';
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
  if (args.values.detach) return queueForWorkers(args, ctx, acted, name, prompt);
  if (args.values.id !== undefined) throw new UsageError(`--id is for a queued run: add --detach; usage: ${USAGE}`);
  const ops = await ctx.ops({ hints: args.values.wait });
  const req = {
    workflow: name,
    prompt,
    worktree: args.values.worktree,
    actor: responder(undefined, ctx.project.root, ctx.env),
    channel: 'cli' as const,
    // In the queue only when its workflow has a concurrency (it waits here for its turn).
    key: args.values.key ?? null,
    priority: args.values.priority === undefined ? 0 : priorityArg(args.values.priority),
  };
  const { run, owner, worktree } = await ops.start(
    req,
    (created) => {
      acted.runId = created.id;
      ctx.out(`run ${created.id} started (${created.spec})`);
    },
    (queued) =>
      ctx.out(
        `  queued: at most ${queued.concurrency} run${queued.concurrency === 1 ? '' : 's'} of ${queued.spec} at once (config{ concurrency }); it starts here in its turn`,
      ),
  );
  if (worktree) ctx.out(`  worktree ${worktree.path} on branch ${worktree.branch}`);
  return driveHere(ctx, ops, run.id, args.values.wait, owner);
}

/** shop run --detach: the run is queued for the workers; this says whether one is there to take it. */
async function queueForWorkers(
  args: CommandArgs<'run'>,
  ctx: Context,
  acted: Acted,
  workflow: string,
  prompt: string,
): Promise<number> {
  if (args.values.worktree)
    throw new UsageError(
      '--worktree is not given to a queued run yet: run it without --detach, or queue it without --worktree',
    );
  if (args.values.wait) throw new UsageError('--wait drives the run here; --detach hands it to the workers: give one');
  const ops = await ctx.ops();
  const by = responder(undefined, ctx.project.root, ctx.env);
  const { run, created, liveWorkers } = await ops.queue({
    workflow,
    prompt,
    priority: args.values.priority === undefined ? 0 : priorityArg(args.values.priority),
    key: args.values.key ?? null,
    id: args.values.id ?? null,
    trigger: { kind: 'cli', name: null, by, data: null },
    actor: by,
  });
  acted.runId = run.id;
  const how = [
    run.priority ? `priority ${run.priority}` : '',
    run.queueKey ? `key ${run.queueKey}` : '',
    run.concurrency ? `at most ${run.concurrency} at once` : '',
  ].filter(Boolean);
  const said = created ? 'queued' : `was queued already by this --id (now ${run.status})`;
  ctx.out(`run ${run.id} ${said} (${run.spec}${how.length ? `, ${how.join(', ')}` : ''})`);
  if (created)
    ctx.out(
      liveWorkers
        ? `  ${liveWorkers} worker${liveWorkers === 1 ? '' : 's'} watching: it starts when one has room; follow it with: shop log -f ${run.id}`
        : '  no worker is watching this store: it starts once one does (shop watch)',
    );
  return 0;
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
