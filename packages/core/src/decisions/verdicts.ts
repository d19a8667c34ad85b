import type { AWAITING_KINDS } from '../signals/signal.js';

export type Awaiting = (typeof AWAITING_KINDS)[number];

/**
 * What approve / reject do to an agent's NEEDS_HUMAN, by its `awaiting` kind — the verdict
 * matrix of the ticks hand-off design. `close` returns to the script with that status;
 * `back` resumes the agent's own session with the person's words and waits for its new signal.
 */
export type VerdictEffect =
  { kind: 'close'; status: string } | { kind: 'back'; lead: string } | { kind: 'invalid'; why: string };

const close = (status: string): VerdictEffect => ({ kind: 'close', status });
const back = (lead: string): VerdictEffect => ({ kind: 'back', lead });

export const VERDICT_MATRIX: Record<Awaiting, { approved: VerdictEffect; rejected: VerdictEffect }> = {
  work: {
    approved: close('DONE'),
    rejected: {
      kind: 'invalid',
      why: 'a work hand-off is done by the person: approve it when the work is done, or hand it back with shop answer',
    },
  },
  approval: { approved: close('APPROVED'), rejected: back('The person rejected this. Their feedback:') },
  input: { approved: back('The person answered:'), rejected: close('REJECTED') },
  review: { approved: close('APPROVED'), rejected: back('The person requested changes:') },
  content: { approved: close('APPROVED'), rejected: back('The person did not accept this. Their feedback:') },
  escalation: { approved: back("The person's direction:"), rejected: close('WONT_DO') },
  checkpoint: {
    approved: back('The person approved this checkpoint: go on with the next phase.'),
    rejected: back('The person rejected this phase: redo it.'),
  },
};

/** `shop answer`: the person's words go back to the agent, whatever it awaited. */
export const ANSWER_EFFECT: VerdictEffect = back('The person replied:');

/** What a verdict does to an agent's ask. */
export function verdictEffect(awaiting: string | null, verdict: 'approved' | 'rejected' | 'answer'): VerdictEffect {
  if (verdict === 'answer') return ANSWER_EFFECT;
  const row = VERDICT_MATRIX[(awaiting ?? 'input') as Awaiting] ?? VERDICT_MATRIX.input;
  return row[verdict];
}

/** The prompt that resumes the agent's session after a verdict. */
export function feedbackPrompt(effect: Extract<VerdictEffect, { kind: 'back' }>, message: string | null): string {
  const words = message?.trim() ? `\n\n${message.trim()}` : '';
  return `${effect.lead}${words}\n\nContinue from here, then report again with shop report (DONE, or NEEDS_HUMAN if you still need the person).`;
}
