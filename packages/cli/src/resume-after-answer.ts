import { isAlive } from '@shop/core/agents/process-group';
import { ownedByOther } from '@shop/core/run-status';
import type { Context } from './context.js';
import { driveHere, enginePorts } from './drive-here.js';

/** After an answer: resume here, unless a live process (shop run --wait) owns the run and will. */
export async function resumeAfterAnswer(ctx: Context, id: number): Promise<number> {
  const store = await ctx.store();
  const run = (await store.getRun(id))!;
  if (ownedByOther(run, process.pid, Date.now(), isAlive)) {
    ctx.out(`run ${id} is driven by process ${run.ownerPid}; it picks up the answer itself`);
    return 0;
  }
  return driveHere(ctx, await enginePorts(ctx), id, false);
}
