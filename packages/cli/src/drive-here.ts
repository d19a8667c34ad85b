import { driveRun } from '@shop/core/engine/drive-run';
import { nodePorts } from '@shop/core/engine/node-ports';
import type { Ownership } from '@shop/core/engine/ownership';
import { describeOwner } from '@shop/core/engine/ownership';
import type { EnginePorts } from '@shop/core/engine/ports';
import type { RunOwner } from '@shop/core/types';
import { binDir, type Context } from './context.js';
import { errLine, printingNotifier, printOutcome } from './output.js';

/** The engine's ports for this process, printing progress to stdout (live lines on a terminal). */
export async function enginePorts(ctx: Context, opts: { hints?: boolean } = {}): Promise<EnginePorts> {
  return nodePorts(ctx.project, { notifier: printingNotifier(ctx.out, ctx.board, opts), binDir, store: await ctx.store() });
}

/**
 * Drives a run in this process until it ends or waits. Ctrl-C / SIGTERM stop its agents
 * (their whole process groups) and leave the run resumable: exit 130.
 */
export async function driveHere(ctx: Context, ports: EnginePorts, runId: number, wait: boolean, owner?: Ownership): Promise<number> {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await driveRun(ports, runId, { wait, signal: abort.signal }, owner);
    ctx.board.close();
    return printOutcome(runId, outcome, ctx.out, errLine);
  } finally {
    // People being told the run needs them: let those notices go out before the process does.
    await ports.notices.settle();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/** After an answer: a live owner resumes the run itself; without one, it is driven here. */
export async function resumeAfterAnswer(ctx: Context, ports: EnginePorts, runId: number, handedTo: RunOwner | null): Promise<number> {
  if (handedTo) {
    ctx.out(`run ${runId} is driven by ${describeOwner(handedTo, ports.self)}; it picks up the answer itself`);
    return 0;
  }
  return driveHere(ctx, ports, runId, false);
}
