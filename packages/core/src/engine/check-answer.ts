import { overallStatus } from '../decisions/validate-answers.js';
import { feedbackPrompt, verdictEffect } from '../decisions/verdicts.js';
import type { PauseSpec } from '../decisions/decision-spec.js';
import type { Answer, Execution, Run } from '../types.js';
import type { EnginePorts } from './ports.js';

/** What an answer does: return a value to Lua, or send the person's words back to the agent. */
type AnswerEffect = { kind: 'value'; value: unknown; by: string } | { kind: 'back'; prompt: string; by: string };

/**
 * The answer to a waiting call's current ask, if a person gave one: only the store is read.
 * No file answers a waiting call — not a pause's, not an agent's: a signal file written while
 * a call waits may come from any process (another run's agent). A person who talks to the
 * agent in its own session (`shop continue`) gets its new report recorded as their answer.
 */
export async function findAnswer(
  ports: Pick<EnginePorts, 'store'>,
  run: Run,
  exec: Execution,
): Promise<AnswerEffect | null> {
  const answer = await ports.store.getAnswer(run.id, exec.key, exec.ask);
  if (!answer) return null;
  return exec.kind === 'pause'
    ? { kind: 'value', value: pauseResult(exec, answer), by: answer.responder }
    : agentAnswer(exec, answer);
}

/** An answer to an agent's NEEDS_HUMAN: an explicit status closes; a verdict follows the matrix. */
export function agentAnswer(exec: Execution, a: Answer): AnswerEffect {
  const base = { responder: a.responder, session_id: exec.sessionId, awaiting: exec.awaiting };
  if (a.status)
    return { kind: 'value', value: { status: a.status, summary: a.message ?? undefined, ...base }, by: a.responder };
  const effect = verdictEffect(exec.awaiting, a.verdict ?? 'answer');
  if (effect.kind === 'close') {
    return {
      kind: 'value',
      value: { status: effect.status, summary: a.message ?? undefined, verdict: a.verdict, ...base },
      by: a.responder,
    };
  }
  // 'invalid' verdicts are refused when recorded; treat a stray one as words for the agent.
  const back = effect.kind === 'back' ? effect : { kind: 'back' as const, lead: 'The person replied:' };
  return { kind: 'back', prompt: feedbackPrompt(back, a.message ?? chosen(a)), by: a.responder };
}

/** What a person picked on an ask with decisions of its own (an agent's choices), as words for the agent. */
function chosen(a: Answer): string | null {
  const picks = Object.values(a.decisions ?? {}).map((d) => (Array.isArray(d.value) ? d.value.join(', ') : d.value));
  const text = picks.filter((v) => v !== null && v !== undefined && String(v).trim()).map(String);
  return text.length ? text.join('\n') : null;
}

/** pause()'s result: continue or not, the structured answers, who answered. */
export function pauseResult(exec: Execution, a: Answer) {
  const decisions = (exec.request as PauseSpec | null)?.decisions ?? [];
  const answers = a.decisions ?? {};
  const overall = a.decisions ? overallStatus(decisions, answers) : null;
  const go = a.decisions ? overall !== 'all_rejected' : a.status === 'CONTINUE' || a.verdict === 'approved';
  return {
    continue: go,
    status: go ? 'CONTINUE' : 'STOP',
    reason: go ? null : (a.message ?? `stopped by ${a.responder}`),
    message: a.message,
    answers: Object.fromEntries(Object.entries(answers).map(([id, v]) => [id, v.value])),
    comments: Object.fromEntries(
      Object.entries(answers)
        .filter(([, v]) => v.comment)
        .map(([id, v]) => [id, v.comment]),
    ),
    overall_status: overall ?? (go ? 'all_approved' : 'all_rejected'),
    responder: a.responder,
    channel: a.channel,
  };
}
