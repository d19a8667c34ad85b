import { isAlive } from '@shop/core/agents/process-group';
import { UsageError } from '@shop/core/errors';
import { responder } from '@shop/core/project/responder';
import { ownedByOther } from '@shop/core/run-status';
import { runIdArg, str } from '../args.js';
import type { Context } from '../context.js';
import { driveHere, enginePorts } from '../drive-here.js';
import type { Parsed } from '../registry.js';
import { loadRunView } from '../run-view.js';
import { pickWaiting } from '../waiting.js';

const USAGE = 'shop signal <id> --status CONTINUE|STOP|<STATUS> [--message M] [--call K]';

/** shop signal: a scripted answer. Records it (first answer wins), then resumes the run here. */
export default async function signal(args: Parsed, ctx: Context): Promise<number> {
  const id = runIdArg(args, USAGE);
  const status = str(args, 'status');
  if (!status) throw new UsageError(`missing --status; usage: ${USAGE}`);
  if (!/^[A-Z][A-Z0-9_]*$/.test(status)) throw new UsageError(`--status "${status}" must be an UPPER_CASE word such as CONTINUE, STOP or DONE`);
  const store = await ctx.store();
  const view = await loadRunView(store, id);
  const exec = pickWaiting(view, str(args, 'call'), 'signal');
  if (exec.kind === 'pause' && status !== 'CONTINUE' && status !== 'STOP') {
    throw new UsageError(`call ${exec.key} is a pause(): answer it with --status CONTINUE or --status STOP, not ${status}`);
  }
  if (exec.kind === 'run' && status === 'NEEDS_HUMAN') throw new UsageError('--status NEEDS_HUMAN would not answer anything; give the status the agent should have reported');
  const by = responder(str(args, 'by'), ctx.project.root, ctx.env);
  await store.recordAnswer({ runId: id, key: exec.key, status, message: str(args, 'message') ?? null, responder: by, channel: 'signal' });
  ctx.out(`run ${id} call ${exec.key}: answered ${status} by ${by}`);
  return resumeAfterAnswer(ctx, id);
}

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
