import type { AnswerFields, AnswerInput } from '@shop/core/decisions/build-answer';
import { UsageError } from '@shop/core/errors';
import { recordAnswer } from '@shop/core/operations/answer';
import { loadRunView, pickWaiting } from '@shop/core/operations/run-view';
import { responder } from '@shop/core/project/responder';
import type { Channel, Execution } from '@shop/core/types';
import { runIdArg, str } from './args.js';
import type { Context } from './context.js';
import { enginePorts, resumeAfterAnswer } from './drive-here.js';
import { firstLine } from './output.js';
import type { Parsed } from './registry.js';

/**
 * Every answering command ends here: pick the waiting call, check the answer against it
 * (nothing is recorded if it is invalid), record it — first answer wins — then resume.
 * `input` may depend on the call (a response file is checked against its request id).
 */
export async function answerCall(
  ctx: Context, args: Parsed, usage: string, channel: Channel,
  input: AnswerInput | ((exec: Execution) => AnswerInput & { by?: string | null }),
): Promise<number> {
  refuseAgents(ctx, usage);
  const id = runIdArg(args, usage);
  const store = await ctx.store();
  const exec = await pickWaiting(store, await loadRunView(store, id, { last: 0 }), str(args, 'call'), usage.split(' ')[1]);
  const given: AnswerInput & { by?: string | null } = typeof input === 'function' ? input(exec) : input;
  return recordAndResume(ctx, exec, given, channel, str(args, 'by') ?? given.by ?? undefined);
}

/** Checks the answer against the call, records it for the call's current ask, says so, and resumes the run. */
export async function recordAndResume(ctx: Context, exec: Execution, given: AnswerInput, channel: Channel, by?: string): Promise<number> {
  const ports = await enginePorts(ctx);
  const who = responder(by, ctx.project.root, ctx.env);
  const { fields, handedTo } = await recordAnswer(ports, exec, given, channel, who);
  ctx.out(`run ${exec.runId} call ${exec.key}: ${answeredText(fields, who)}`);
  return resumeAfterAnswer(ctx, ports, exec.runId, handedTo);
}

/** "answered approved by ann", "answered by ann: use postgres", "answered decisions {…} by ann". */
export function answeredText(fields: AnswerFields, who: string): string {
  if (fields.decisions) return `answered decisions ${JSON.stringify(Object.fromEntries(Object.entries(fields.decisions).map(([k, v]) => [k, v.value])))} by ${who}`;
  if (fields.verdict === 'answer') return `answered by ${who}${fields.message ? `: ${firstLine(fields.message)}` : ''}`;
  return `answered ${fields.verdict ?? fields.status} by ${who}`;
}

/**
 * Asks are answered by people. Inside an agent step (Shop sets SHOP_AGENT for it) the
 * answering commands refuse, so an agent cannot approve its own gate from its shell.
 */
export function refuseAgents(ctx: Context, usage: string): void {
  if (ctx.env.SHOP_AGENT) {
    throw new UsageError(`${usage.split(' ').slice(0, 2).join(' ')} answers for a person and cannot run inside an agent step (SHOP_AGENT=${ctx.env.SHOP_AGENT}); agents report with shop report`);
  }
}
