import { describe, expect, it } from 'vitest';
import { AWAITING_KINDS } from '../signals/signal.js';
import { ANSWER_EFFECT, feedbackPrompt, VERDICT_MATRIX, verdictEffect, type VerdictEffect } from './verdicts.js';

/**
 * The ticks "Verdict Processing Matrix", row by row:
 *   awaiting    approved                      rejected
 *   work        Close tick                    (invalid - human couldn't do it?)
 *   approval    Close tick                    Back to agent (with feedback)
 *   input       Back to agent (with answer)   Close tick (can't proceed)
 *   review      Close tick (merge PR)         Back to agent (with feedback)
 *   content     Close tick                    Back to agent (with feedback)
 *   escalation  Back to agent (with direction) Close tick (won't do)
 *   checkpoint  Back to agent (next phase)    Back to agent (redo phase)
 * A closed tick returns to the script with the status shown here.
 */
const MATRIX: [awaiting: string, approved: string, rejected: string][] = [
  ['work', 'close DONE', 'invalid'],
  ['approval', 'close APPROVED', 'back'],
  ['input', 'back', 'close REJECTED'],
  ['review', 'close APPROVED', 'back'],
  ['content', 'close APPROVED', 'back'],
  ['escalation', 'back', 'close WONT_DO'],
  ['checkpoint', 'back', 'back'],
];

const short = (e: VerdictEffect) => (e.kind === 'close' ? `close ${e.status}` : e.kind);

describe('verdictEffect follows the ticks matrix', () => {
  it('covers every awaiting kind a signal may carry, and no other', () => {
    expect(MATRIX.map(([a]) => a).sort()).toEqual([...AWAITING_KINDS].sort());
    expect(Object.keys(VERDICT_MATRIX).sort()).toEqual([...AWAITING_KINDS].sort());
  });

  it.each(MATRIX)('%s: approve → %s, reject → %s', (awaiting, approved, rejected) => {
    expect(short(verdictEffect(awaiting, 'approved'))).toBe(approved);
    expect(short(verdictEffect(awaiting, 'rejected'))).toBe(rejected);
  });

  it('each "back" carries a lead that says what the person did', () => {
    expect(verdictEffect('approval', 'rejected')).toEqual({
      kind: 'back',
      lead: 'The person rejected this. Their feedback:',
    });
    expect(verdictEffect('input', 'approved')).toEqual({ kind: 'back', lead: 'The person answered:' });
    expect(verdictEffect('review', 'rejected')).toEqual({ kind: 'back', lead: 'The person requested changes:' });
    expect(verdictEffect('content', 'rejected')).toEqual({
      kind: 'back',
      lead: 'The person did not accept this. Their feedback:',
    });
    expect(verdictEffect('escalation', 'approved')).toEqual({ kind: 'back', lead: "The person's direction:" });
    expect(verdictEffect('checkpoint', 'approved')).toMatchObject({
      lead: expect.stringContaining('go on with the next phase'),
    });
    expect(verdictEffect('checkpoint', 'rejected')).toMatchObject({ lead: expect.stringContaining('redo it') });
  });

  it('rejecting a work hand-off is invalid, and says what to do instead', () => {
    const e = verdictEffect('work', 'rejected');
    expect(e.kind).toBe('invalid');
    expect((e as { why: string }).why).toMatch(/approve it when the work is done, or hand it back with shop answer/);
  });

  it('answer always goes back to the agent, whatever it awaited', () => {
    for (const awaiting of [...AWAITING_KINDS, null, 'bogus']) {
      expect(verdictEffect(awaiting, 'answer')).toEqual({ kind: 'back', lead: 'The person replied:' });
    }
    expect(ANSWER_EFFECT).toEqual({ kind: 'back', lead: 'The person replied:' });
  });

  it('an unknown or missing awaiting is treated as input', () => {
    for (const awaiting of [null, 'bogus', '']) {
      expect(verdictEffect(awaiting, 'approved')).toEqual(verdictEffect('input', 'approved'));
      expect(verdictEffect(awaiting, 'rejected')).toEqual({ kind: 'close', status: 'REJECTED' });
    }
  });
});

describe('feedbackPrompt', () => {
  const back = { kind: 'back' as const, lead: 'The person rejected this. Their feedback:' };
  const report =
    'Continue from here, then report again with shop report (DONE, or NEEDS_HUMAN if you still need the person).';

  it("puts the lead, the person's own words and the instruction to report again", () => {
    expect(feedbackPrompt(back, 'Add tests for the empty cart.')).toBe(
      `${back.lead}\n\nAdd tests for the empty cart.\n\n${report}`,
    );
  });

  it('trims the words and leaves them out when there are none', () => {
    expect(feedbackPrompt(back, '  use postgres \n')).toBe(`${back.lead}\n\nuse postgres\n\n${report}`);
    expect(feedbackPrompt(back, null)).toBe(`${back.lead}\n\n${report}`);
    expect(feedbackPrompt(back, '   ')).toBe(`${back.lead}\n\n${report}`);
  });
});
