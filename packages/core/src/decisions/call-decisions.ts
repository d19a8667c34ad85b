import type { Execution } from '../types.js';
import type { Decision, PauseSpec } from './decision-spec.js';

/** The decisions a waiting call asks for: a pause's own, its ask's own, or the single one an agent's ask implies. */
export function callDecisions(exec: Execution): Decision[] {
  if (exec.kind === 'pause') return (exec.request as PauseSpec | null)?.decisions ?? [];
  // An ask that names its own (an agent's AskUserQuestion: a choice per question).
  if (exec.askDecisions?.length) return exec.askDecisions;
  const prompt = exec.waitingFor ?? 'the agent needs a person';
  return exec.awaiting === 'input' || !exec.awaiting
    ? [{ id: IMPLIED.answer, type: 'text', prompt, required: true }]
    : [{ id: IMPLIED.approve, type: 'approval', prompt, required: true }];
}

/** The ids of the decision an agent's ask implies (answered by shop answer, or approve and reject). */
const IMPLIED = { answer: 'answer', approve: 'approve' } as const;

/** Whether these are decisions an ask names itself (a pause's, AskUserQuestion's), not the one an agent's ask implies. */
export function ownDecisions(decisions: readonly Pick<Decision, 'id'>[]): boolean {
  return decisions.some((d) => d.id !== IMPLIED.answer && d.id !== IMPLIED.approve);
}

/** The id of one ask, as an AAH decision/request artifact id. */
export const requestId = (exec: Pick<Execution, 'runId' | 'key' | 'ask'>) =>
  `shop-run-${exec.runId}-call-${exec.key.replaceAll('/', '-')}-ask-${exec.ask}`;
