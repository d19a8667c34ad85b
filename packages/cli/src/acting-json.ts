import type { AnsweredJson } from '@shop/core';
import type { Context } from './context.js';
import type { Argv } from './command-spec.js';

/** What an acting command did, filled in as it goes: the run, and the ask it answered. */
export interface Acted {
  runId: number | null;
  answered: AnsweredJson | null;
}

/**
 * An acting command (run, resume, stop, approve, reject, answer, signal, continue). With
 * --json, the lines a person reads go to stderr and stdout gets one document (ActionJson,
 * built by core's action query): the run, the ask answered, its state now, the asks open now
 * with their handles, and the exit code (unchanged by --json). An error prints no document:
 * its line and code as always.
 */
export async function acting(
  ctx: Context,
  args: Argv<{ readonly json?: boolean }>,
  work: (acted: Acted) => Promise<number>,
): Promise<number> {
  const acted: Acted = { runId: null, answered: null };
  if (!args.values.json) return work(acted);
  const stdout = ctx.divertToStderr();
  const code = await work(acted);
  if (acted.runId === null) return code;
  const doc = await (
    await ctx.ops()
  ).action({ command: args.command, runId: acted.runId, answered: acted.answered, exitCode: code });
  stdout(JSON.stringify(doc, null, 2));
  return code;
}
