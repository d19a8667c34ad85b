import { buildAnswer, handleOf, refuseAgent, responder } from '@shop/core';
import type { AnswerFields, AnswerInput, Execution, PersonChannel, ShopOperations } from '@shop/core';
import { acting, type Acted } from './acting-json.js';
import { confirmBare, pickTarget, unseenNote } from './ask-target.js';
import type { Argv } from './command-spec.js';
import type { Context } from './context.js';
import { resumeAfterAnswer } from './drive-here.js';
import { firstLine } from './output.js';

/** The flags every answering command has (approve, reject, answer, signal). */
type AnswerFlags = { readonly call?: string; readonly by?: string; readonly yes?: boolean; readonly json?: boolean };

/**
 * Every answering command ends here: pick the ask (by handle: exactly that one; by bare run
 * id: its one open ask, confirmed on a terminal), check the answer against it (nothing is
 * recorded if it is invalid), record it — first answer wins — then resume. Core's answer
 * operation decides who may answer (never an agent): an agent's shell is refused up front.
 * `input` may depend on the call (a response file is checked against its request id).
 */
export async function answerCall(
  ctx: Context,
  args: Argv<AnswerFlags>,
  usage: string,
  channel: PersonChannel,
  input: AnswerInput | ((exec: Execution) => AnswerInput & { by?: string | null }),
): Promise<number> {
  const { command } = args;
  // Who may answer is core's rule (never an agent); said before anything is read.
  refuseAgent(ctx.caller, `shop ${command}`);
  const ops = await ctx.ops();
  return acting(ctx, args, async (acted) => {
    const { exec, bare } = await pickTarget(ops, args, usage);
    acted.runId = exec.runId;
    const given: AnswerInput & { by?: string | null } = typeof input === 'function' ? input(exec) : input;
    // An answer that does not fit is refused before anyone is asked to confirm it.
    buildAnswer(exec, given);
    const seen = bare ? await confirmBare(ctx, args.values.yes, exec, command) : 'confirmed';
    if (seen === 'declined') return 0;
    return recordAndResume(
      ctx,
      ops,
      exec,
      given,
      channel,
      args.values.by ?? given.by ?? undefined,
      acted,
      seen === 'unseen',
    );
  });
}

/** Records the answer for the ask picked (core's answer operation), says so, and resumes the run (core's resumeAfterAnswer). */
export async function recordAndResume(
  ctx: Context,
  ops: ShopOperations,
  exec: Execution,
  given: AnswerInput,
  channel: PersonChannel,
  by?: string,
  acted?: Acted,
  unseen = false,
): Promise<number> {
  const who = responder(by, ctx.project.root, ctx.env);
  const { fields, answered, handedTo } = await ops.answer(exec, { input: given, channel, responder: who });
  if (acted) acted.answered = answered;
  ctx.out(`run ${exec.runId} call ${exec.key} (${handleOf(exec)}): ${answeredText(fields, who)}`);
  if (unseen) ctx.out(unseenNote(exec));
  return resumeAfterAnswer(ctx, ops, exec.runId, handedTo);
}

/** "answered approved by ann", "answered by ann: use postgres", "answered decisions {…} by ann". */
export function answeredText(fields: AnswerFields, who: string): string {
  if (fields.decisions)
    return `answered decisions ${JSON.stringify(Object.fromEntries(Object.entries(fields.decisions).map(([k, v]) => [k, v.value])))} by ${who}`;
  if (fields.verdict === 'answer') return `answered by ${who}${fields.message ? `: ${firstLine(fields.message)}` : ''}`;
  return `answered ${fields.verdict ?? fields.status} by ${who}`;
}
