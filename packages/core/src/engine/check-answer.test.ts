import { describe, expect, it } from 'vitest';
import { buildAnswer } from '../decisions/build-answer.js';
import { feedbackPrompt } from '../decisions/verdicts.js';
import { agentAnswer, pauseResult } from './check-answer.js';
import { agentAsk, answer, pauseAsk } from './testing/executions.js';

describe('pauseResult: a plain pause', () => {
  const pause = pauseAsk('Ship it?');

  it('CONTINUE goes on', () => {
    expect(pauseResult(pause, answer({ status: 'CONTINUE', channel: 'tui' }))).toEqual({
      continue: true,
      status: 'CONTINUE',
      reason: null,
      message: null,
      answers: {},
      comments: {},
      overall_status: 'all_approved',
      responder: 'ann',
      channel: 'tui',
    });
  });

  it('approve goes on, keeping the message', () => {
    expect(pauseResult(pause, answer({ verdict: 'approved', message: 'go' }))).toMatchObject({
      continue: true,
      status: 'CONTINUE',
      reason: null,
      message: 'go',
    });
  });

  it('STOP stops; without words the reason names who stopped it', () => {
    expect(pauseResult(pause, answer({ status: 'STOP', responder: 'bob', channel: 'signal' }))).toEqual({
      continue: false,
      status: 'STOP',
      reason: 'stopped by bob',
      message: null,
      answers: {},
      comments: {},
      overall_status: 'all_rejected',
      responder: 'bob',
      channel: 'signal',
    });
  });

  it('reject with feedback stops with the feedback as the reason', () => {
    expect(pauseResult(pause, answer({ verdict: 'rejected', message: 'not on a Friday' }))).toMatchObject({
      continue: false,
      status: 'STOP',
      reason: 'not on a Friday',
      message: 'not on a Friday',
      overall_status: 'all_rejected',
    });
  });
});

describe('pauseResult: a structured pause', () => {
  const pause = pauseAsk({
    message: 'Launch?',
    decisions: [
      { id: 'copy', type: 'approval', prompt: 'Copy OK?' },
      { id: 'price', type: 'approval', prompt: 'Price OK?' },
      { id: 'when', type: 'choice', prompt: 'When?', options: ['now', 'monday'], default: 'monday' },
    ],
  });
  const answered = (answers: unknown, message?: string) =>
    answer({ ...buildAnswer(pause, { answers, message }), channel: 'signal' });

  it('partial approval goes on, with answers, comments and the aggregate', () => {
    expect(
      pauseResult(pause, answered({ copy: true, price: { value: false, comment: 'too low' } }, 'mostly fine')),
    ).toEqual({
      continue: true,
      status: 'CONTINUE',
      reason: null,
      message: 'mostly fine',
      answers: { copy: true, price: false, when: 'monday' },
      comments: { price: 'too low' },
      overall_status: 'partial',
      responder: 'ann',
      channel: 'signal',
    });
  });

  it('all approved goes on', () => {
    expect(pauseResult(pause, answer(buildAnswer(pause, { verdict: 'approved' })))).toMatchObject({
      continue: true,
      overall_status: 'all_approved',
      answers: { copy: true, price: true, when: 'monday' },
      comments: {},
    });
  });

  it('all rejected stops, the reason from the message or the responder', () => {
    expect(pauseResult(pause, answered({ copy: false, price: false, when: 'now' }, 'start over'))).toMatchObject({
      continue: false,
      status: 'STOP',
      reason: 'start over',
      overall_status: 'all_rejected',
      answers: { copy: false, price: false, when: 'now' },
    });
    expect(pauseResult(pause, answered({ copy: false, price: false }))).toMatchObject({
      continue: false,
      reason: 'stopped by ann',
    });
  });

  it('a plain reject of a structured pause stops with no answers', () => {
    expect(pauseResult(pause, answer(buildAnswer(pause, { verdict: 'rejected', message: 'no' })))).toMatchObject({
      continue: false,
      reason: 'no',
      answers: {},
      overall_status: 'all_rejected',
    });
  });
});

describe('agentAnswer', () => {
  it('an explicit status closes with it, carrying session, awaiting and responder', () => {
    expect(
      agentAnswer(agentAsk({ awaiting: 'review' }), answer({ status: 'DONE', message: 'merged it myself' })),
    ).toEqual({
      kind: 'value',
      by: 'ann',
      value: {
        status: 'DONE',
        summary: 'merged it myself',
        responder: 'ann',
        session_id: 'sess-1',
        awaiting: 'review',
      },
    });
  });

  it('a closing verdict returns the matrix status with the words as summary', () => {
    expect(
      agentAnswer(
        agentAsk({ awaiting: 'approval' }),
        answer({ verdict: 'approved', message: 'lgtm', responder: 'cy' }),
      ),
    ).toEqual({
      kind: 'value',
      by: 'cy',
      value: {
        status: 'APPROVED',
        summary: 'lgtm',
        verdict: 'approved',
        responder: 'cy',
        session_id: 'sess-1',
        awaiting: 'approval',
      },
    });
    expect(agentAnswer(agentAsk({ awaiting: 'escalation' }), answer({ verdict: 'rejected' }))).toMatchObject({
      kind: 'value',
      value: { status: 'WONT_DO', summary: undefined, verdict: 'rejected' },
    });
    expect(agentAnswer(agentAsk({ awaiting: 'work' }), answer({ verdict: 'approved' }))).toMatchObject({
      value: { status: 'DONE' },
    });
  });

  it('a verdict that goes back gives the prompt for the agent', () => {
    const back = agentAnswer(agentAsk({ awaiting: 'approval' }), answer({ verdict: 'rejected', message: 'add tests' }));
    expect(back).toEqual({
      kind: 'back',
      by: 'ann',
      prompt: feedbackPrompt({ kind: 'back', lead: 'The person rejected this. Their feedback:' }, 'add tests'),
    });
    expect((back as { prompt: string }).prompt).toMatch(
      /^The person rejected this\. Their feedback:\n\nadd tests\n\nContinue from here, then report again with shop report/,
    );
    expect(agentAnswer(agentAsk(), answer({ verdict: 'answer', message: 'postgres' }))).toMatchObject({
      kind: 'back',
      prompt: expect.stringMatching(/^The person replied:\n\npostgres\n/),
    });
    expect(
      agentAnswer(agentAsk({ awaiting: 'input' }), answer({ verdict: 'approved', message: 'postgres' })),
    ).toMatchObject({ kind: 'back', prompt: expect.stringMatching(/^The person answered:\n\npostgres\n/) });
  });

  it('a stray invalid verdict (work rejected) is passed on as words, not dropped', () => {
    expect(
      agentAnswer(agentAsk({ awaiting: 'work' }), answer({ verdict: 'rejected', message: 'could not' })),
    ).toMatchObject({ kind: 'back', prompt: expect.stringMatching(/^The person replied:\n\ncould not\n/) });
  });
});
