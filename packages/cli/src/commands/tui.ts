import { relative } from 'node:path';
import { UsageError, refuseAgent, responder } from '@shop/core';
import { resumeDetached } from '../background-resume.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

/** shop tui (and bare `shop` on a terminal): the run browser. */
export default async function tui(args: CommandArgs<'tui'>, ctx: Context): Promise<number> {
  // Its keys answer: refused for an agent (core's rule) before anything is opened.
  refuseAgent(ctx.caller, 'shop tui');
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new UsageError(
      'shop tui needs a terminal; in scripts use shop list, shop inbox or shop status (each with --json)',
    );
  }
  const ops = await ctx.ops({ quiet: true });
  // Imported here only: Ink and React load for `shop tui` alone, never for plain commands.
  const { runTui } = await import('@shop/tui/launch');
  return runTui({
    ops,
    responder: responder(args.values.by, ctx.project.root, ctx.env),
    env: ctx.env,
    resumeInBackground: (runId) => resumeInBackground(ctx, runId),
  });
}

/** `shop resume <id>` detached, not printing over the TUI's screen: its output goes to the run's tui-resume.log. */
function resumeInBackground(ctx: Context, runId: number): { log: string } {
  const log = resumeDetached(ctx.project, ctx.env, runId, 'tui-resume.log', () => {});
  return { log: relative(ctx.cwd, log) || log };
}
