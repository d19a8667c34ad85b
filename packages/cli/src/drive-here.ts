import { nodePorts } from '@shop/core/engine/node-ports';
import { driveRun } from '@shop/core/engine/drive';
import type { EnginePorts } from '@shop/core/engine/ports';
import { binDir, type Context } from './context.js';
import { errLine, printingNotifier, printOutcome } from './output.js';

/** The engine's ports for this process, printing progress to stdout. */
export async function enginePorts(ctx: Context): Promise<EnginePorts> {
  return nodePorts(ctx.project, { notifier: printingNotifier(ctx.out), binDir, store: await ctx.store() });
}

/**
 * Drives a run in this process until it ends or waits, with Ctrl-C / SIGTERM (e.g. from
 * `shop stop`) killing the agent's process group and leaving the run resumable.
 */
export async function driveHere(ctx: Context, ports: EnginePorts, runId: number, wait: boolean): Promise<number> {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await driveRun(ports, runId, { wait, signal: abort.signal });
    return printOutcome(runId, outcome, ctx.out, errLine);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
