import { handleOf } from '@shop/core';
import type { AnswerInput, Execution, RunOwner, SessionHandOff } from '@shop/core';
import type { TuiDeps } from '../deps.js';

type AnswerDeps = Pick<TuiDeps, 'ops' | 'responder' | 'resumeInBackground'>;

/** Records an answer to the ask on screen through core's answer operation, then sees the run resumed. */
export async function answerCall(deps: AnswerDeps, exec: Execution, input: AnswerInput): Promise<string> {
  const { fields, handedTo } = await deps.ops.answer(
    exec,
    { input, channel: 'tui', responder: deps.responder },
    'shop tui',
  );
  const what = fields.decisions
    ? `decisions ${JSON.stringify(Object.fromEntries(Object.entries(fields.decisions).map(([k, v]) => [k, v.value])))}`
    : (fields.verdict ?? fields.status);
  return `run ${exec.runId} call ${exec.key} (${handleOf(exec)}): answered ${what} by ${deps.responder}; ${afterAnswer(deps, exec.runId, handedTo)}`;
}

/** After a person talked to the agent in its own session: its new signal is the answer, if it reported anew. */
export async function sessionAnswer(
  deps: AnswerDeps,
  exec: Execution,
  session: SessionHandOff,
): Promise<{ text: string; answered: boolean }> {
  const taken = await session.answer();
  if (taken.kind !== 'answered') {
    const why =
      taken.kind === 'invalid'
        ? `${exec.agent}'s report ${taken.problem}`
        : `${exec.agent} has not reported a new status`;
    return { text: `run ${exec.runId} still waits: ${why} (c opens its session again)`, answered: false };
  }
  return {
    text: `${exec.agent} reported ${taken.status}; ${afterAnswer(deps, exec.runId, taken.handedTo)}`,
    answered: true,
  };
}

/**
 * A live owner takes the answer in itself; otherwise the run resumes in the background, not
 * tied to this process (core's resumeAfterAnswer drives in the foreground, which a screen cannot).
 */
function afterAnswer(deps: AnswerDeps, runId: number, handedTo: RunOwner | null): string {
  if (handedTo) return `${deps.ops.describeOwner(handedTo)} drives run ${runId} and picks the answer up`;
  const { log } = deps.resumeInBackground(runId);
  return `run ${runId} resumes in the background (log: ${log})`;
}
