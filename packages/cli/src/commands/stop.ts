import { isAlive, killGroup } from '@shop/core/agents/process-group';
import { ConflictError } from '@shop/core/errors';
import { responder } from '@shop/core/project/responder';
import { runIdArg, str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';
import { loadRunView } from '../run-view.js';

/** shop stop <id> --reason R: the run ends stuck; its agent's process group and driver are stopped. */
export default async function stop(args: Parsed, ctx: Context): Promise<number> {
  const id = runIdArg(args, 'shop stop <id> --reason R');
  const store = await ctx.store();
  const { run, executions } = await loadRunView(store, id);
  const by = responder(str(args, 'by'), ctx.project.root, ctx.env);
  const reason = str(args, 'reason') ?? `stopped by ${by}`;
  const stopped = await store.finishRun(id, 'stuck', { reason }, { type: 'stopped', actor: by, channel: 'cli', data: { reason } });
  if (!stopped) throw new ConflictError(`run ${id} has already ended (${run.status}${run.reason ? `: ${run.reason}` : ''})`);
  for (const e of executions) if (e.status === 'running' && e.pid) killGroup(e.pid);
  if (run.ownerPid && run.ownerPid !== process.pid && isAlive(run.ownerPid)) {
    try {
      process.kill(run.ownerPid, 'SIGTERM');
    } catch {
      /* it just ended */
    }
  }
  ctx.out(`Run ${id} marked as stuck: ${reason}`);
  return 0;
}
