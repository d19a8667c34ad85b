import { handleOf } from './ask-handle.js';
import { InvalidAnswersError, issueLine, UsageError, type SuggestedAction } from '../errors.js';
import type { Answer, Execution, Verdict } from '../types.js';
import { callDecisions } from './call-decisions.js';
import type { Decision } from './decision-spec.js';
import { approveAll, validateAnswers } from './validate-answers.js';
import { verdictEffect } from './verdicts.js';

/** What a person gave, through any channel, before it is checked against the waiting call. */
export interface AnswerInput {
  verdict?: Verdict;
  status?: string;
  message?: string | null;
  /** Structured answers keyed by decision id (a value or {value, comment}). */
  answers?: unknown;
}

export type AnswerFields = Pick<Answer, 'verdict' | 'status' | 'message' | 'decisions'>;

/**
 * Checks an answer against the waiting call and returns what to record — or a UsageError
 * naming the problem (nothing is recorded then). The rules: a pause takes approve/reject,
 * CONTINUE/STOP or its decisions; an agent's ask takes a verdict (the matrix decides), an
 * explicit status, or the answers of its implied decision.
 */
export function buildAnswer(exec: Execution, input: AnswerInput): AnswerFields {
  const message = trimmed(input.message);
  return exec.kind === 'pause' ? pauseAnswer(exec, input, message) : agentAnswerFields(exec, input, message);
}

function pauseAnswer(exec: Execution, input: AnswerInput, message: string | null): AnswerFields {
  const decisions = callDecisions(exec);
  const none = { verdict: input.verdict ?? null, status: input.status ?? null, message, decisions: null };
  if (input.answers !== undefined) {
    if (!decisions.length)
      throw new UsageError(
        `call ${exec.key} is a plain pause with no decisions; answer it with approve/reject (or --status CONTINUE|STOP)`,
      );
    return { ...none, decisions: validated(decisions, input.answers) };
  }
  if (input.verdict === 'answer') {
    const verdicts = `shop approve ${handleOf(exec)}, shop reject ${handleOf(exec)} "why"`;
    throw new UsageError(
      `call ${exec.key} is a pause(): approve or reject it (${verdicts})${decisions.length ? `, or give its decisions with: ${signalAnswers(exec, decisions)}` : ''}`,
    );
  }
  const go = input.verdict === 'approved' || input.status === 'CONTINUE';
  const stop = input.verdict === 'rejected' || input.status === 'STOP';
  if (!go && !stop)
    throw new UsageError(
      `call ${exec.key} is a pause(): answer it with --status CONTINUE or --status STOP, not ${input.status}`,
    );
  if (go && decisions.length) {
    const filled = validateAnswers(decisions, approveAll(decisions));
    if (!filled.ok)
      throw new InvalidAnswersError(
        `approving needs every decision: ${filled.issues.map(issueLine).join('; ')}`,
        filled.issues,
        [decide(exec, decisions)],
      );
    return { ...none, decisions: filled.answers };
  }
  return none;
}

function agentAnswerFields(exec: Execution, input: AnswerInput, message: string | null): AnswerFields {
  // An ask with decisions of its own (an agent's AskUserQuestion): its answers, checked against them all.
  if (input.answers !== undefined && exec.askDecisions?.length) {
    return { verdict: 'approved', status: null, message, decisions: validated(exec.askDecisions, input.answers) };
  }
  if (input.answers !== undefined) {
    const [decision] = callDecisions(exec);
    const [only] = Object.values(validated([decision], input.answers));
    const words = trimmed(decision.id === 'answer' ? String(only.value) : (only.comment ?? message));
    const verdict = decision.id === 'answer' ? 'answer' : only.value ? 'approved' : 'rejected';
    return agentAnswerFields(exec, { verdict, message: words }, words);
  }
  if (input.status) {
    if (input.status === 'NEEDS_HUMAN')
      throw new UsageError(
        '--status NEEDS_HUMAN would not answer anything; give the status the agent should have reported',
      );
    return { verdict: null, status: input.status, message, decisions: null };
  }
  const verdict = input.verdict ?? 'answer';
  const effect = verdictEffect(exec.awaiting, verdict);
  if (effect.kind === 'invalid') throw new UsageError(`call ${exec.key} awaits ${exec.awaiting}: ${effect.why}`);
  const awaiting = exec.awaiting ?? 'input';
  if (
    effect.kind === 'back' &&
    !message &&
    (verdict === 'answer' || awaiting === 'input' || awaiting === 'escalation')
  ) {
    throw new UsageError(`${exec.agent} awaits ${awaiting} ("${exec.waitingFor}"): give the words it needs`, [
      { verb: 'answer', handle: handleOf(exec), needs: 'message' },
    ]);
  }
  // A rejection that goes back to the agent is only useful with what to change.
  if (effect.kind === 'back' && !message && verdict === 'rejected' && awaiting !== 'checkpoint') {
    throw new UsageError(`rejecting sends ${exec.agent} back to work: say what to change`, [
      { verb: 'reject', handle: handleOf(exec), needs: 'message' },
    ]);
  }
  return { verdict, status: null, message, decisions: null };
}

/** Giving a pause's decisions, as an action. */
const decide = (exec: Execution, decisions: Decision[]): SuggestedAction => ({
  verb: 'decide',
  handle: handleOf(exec),
  needs: 'answers',
  decisions: decisions.map((d) => d.id),
});

/** The command that gives a pause's decisions: shop signal <id> --answers '{"d1": …}'. */
const signalAnswers = (exec: Execution, decisions: Decision[]) =>
  `shop signal ${handleOf(exec)} --answers '{${decisions.map((d) => `"${d.id}": …`).join(', ')}}'`;

const trimmed = (m: string | null | undefined) => (m?.trim() ? m.trim() : null);

function validated(decisions: Decision[], raw: unknown) {
  const r = validateAnswers(decisions, raw);
  if (!r.ok)
    throw new InvalidAnswersError(`invalid answers, nothing recorded: ${r.issues.map(issueLine).join('; ')}`, r.issues);
  return r.answers;
}
