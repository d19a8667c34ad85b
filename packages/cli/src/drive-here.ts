import type { AcceptChanges, DriveOutcome, Ownership, RunOwner, ShopOperations } from '@shop/core';
import type { Context } from './context.js';
import { errLine, printOutcome } from './output.js';

/**
 * Drives a run in this process until it ends or waits. Ctrl-C / SIGTERM stop its agents
 * (their whole process groups) and leave the run resumable: exit 130.
 */
export async function driveHere(
  ctx: Context,
  ops: ShopOperations,
  runId: number,
  wait: boolean,
  owner?: Ownership,
  acceptChanges?: AcceptChanges,
): Promise<number> {
  return underSignals(ctx, ops, runId, async (signal) => ({
    outcome: await ops.drive(runId, { wait, signal, acceptChanges }, owner),
  }));
}

/** After an answer (core's resumeAfterAnswer): a live owner takes it in itself; without one, the run is driven here. */
export async function resumeAfterAnswer(
  ctx: Context,
  ops: ShopOperations,
  runId: number,
  handedTo: RunOwner | null,
): Promise<number> {
  return underSignals(ctx, ops, runId, (signal) => ops.resumeAfterAnswer(runId, handedTo, { wait: false, signal }));
}

async function underSignals(
  ctx: Context,
  ops: ShopOperations,
  runId: number,
  work: (signal: AbortSignal) => Promise<{ handedTo: RunOwner } | { outcome: DriveOutcome; runId?: number }>,
): Promise<number> {
  const abort = new AbortController();
  const onSignal = () => abort.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const done = await work(abort.signal);
    if ('handedTo' in done) {
      ctx.out(`run ${runId} is driven by ${ops.describeOwner(done.handedTo)}; it picks up the answer itself`);
      return 0;
    }
    ctx.board.close();
    // A child's end drove its parent on here: the parent's state is the command's.
    const last = done.runId ?? runId;
    if (last !== runId) ctx.out(`run ${runId} ended; it woke its parent, run ${last}, driven on here`);
    return printOutcome(last, done.outcome, ctx.out, errLine);
  } finally {
    // People being told the run needs them: let those notices go out before the process does.
    await ops.settle();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
