import { buildAnswer, type AnswerFields, type AnswerInput } from '@shop/core/decisions/build-answer';
import { handleOf } from '@shop/core/decisions/ask-handle';
import { UsageError } from '@shop/core/errors';
import { recordAnswer } from '@shop/core/operations/answer';
import { responder } from '@shop/core/project/responder';
import type { Channel, Execution } from '@shop/core/types';
import { acting, type Acted } from './acting-json.js';
import { confirmBare, pickTarget, unseenNote } from './ask-target.js';
import { str } from './args.js';
import type { Context } from './context.js';
import { enginePorts, resumeAfterAnswer } from './drive-here.js';
import { firstLine } from './output.js';
import type { Parsed } from './registry.js';

/**
 * Every answering command ends here: pick the ask (by handle: exactly that one; by bare run
 * id: its one open ask, confirmed on a terminal), check the answer against it (nothing is
 * recorded if it is invalid), record it — first answer wins — then resume.
 * `input` may depend on the call (a response file is checked against its request id).
 */
export async function answerCall(
  ctx: Context, args: Parsed, usage: string, channel: Channel,
  input: AnswerInput | ((exec: Execution) => AnswerInput & { by?: string | null }),
): Promise<number> {
  refuseAgents(ctx, usage);
  const command = usage.split(' ')[1];
  return acting(ctx, args, command, async (acted) => {
    const { exec, bare } = await pickTarget(ctx, args, usage);
    acted.runId = exec.runId;
    const given: AnswerInput & { by?: string | null } = typeof input === 'function' ? input(exec) : input;
    // An answer that does not fit is refused before anyone is asked to confirm it.
    buildAnswer(exec, given);
    const seen = bare ? await confirmBare(ctx, args, exec, command) : 'confirmed';
    if (seen === 'declined') return 0;
    return recordAndResume(ctx, exec, given, channel, str(args, 'by') ?? given.by ?? undefined, acted, seen === 'unseen');
  });
}

/** Checks the answer against the call, records it for the ask picked, says so, and resumes the run. */
export async function recordAndResume(ctx: Context, exec: Execution, given: AnswerInput, channel: Channel, by?: string, acted?: Acted, unseen = false): Promise<number> {
  const ports = await enginePorts(ctx);
  const who = responder(by, ctx.project.root, ctx.env);
  const { fields, handedTo } = await recordAnswer(ports, exec, given, channel, who);
  if (acted) {
    acted.answered = {
      handle: handleOf(exec), key: exec.key, ask: exec.ask, question: exec.waitingFor,
      verdict: fields.verdict, status: fields.status, message: fields.message, decisions: fields.decisions, responder: who, channel,
    };
  }
  ctx.out(`run ${exec.runId} call ${exec.key} (${handleOf(exec)}): ${answeredText(fields, who)}`);
  if (unseen) ctx.out(unseenNote(exec));
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
