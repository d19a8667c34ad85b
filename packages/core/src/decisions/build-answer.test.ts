import { describe, expect, it } from 'vitest';
import {
  InvalidAnswersError,
  UsageError,
  type ShopError,
  type SuggestedAction,
  type ValidationIssue,
} from '../errors.js';
import { agentAsk, pauseAsk } from '../engine/testing/executions.js';
import type { Execution } from '../types.js';
import { buildAnswer, type AnswerInput } from './build-answer.js';

/** The UsageError message buildAnswer refuses with (and fails the test if it does not). */
/** What the refusal suggests doing, as data (each front end words it). */
function actionsOf(exec: Execution, input: AnswerInput): readonly SuggestedAction[] {
  try {
    buildAnswer(exec, input);
  } catch (e) {
    return (e as ShopError).actions;
  }
  throw new Error('expected a refusal');
}

/** The issues a refusal names, as data. */
function issuesOf(exec: Execution, input: AnswerInput): readonly ValidationIssue[] {
  try {
    buildAnswer(exec, input);
  } catch (e) {
    expect(e).toBeInstanceOf(InvalidAnswersError);
    return (e as InvalidAnswersError).issues;
  }
  throw new Error('expected a refusal');
}

function refusal(exec: Execution, input: AnswerInput): string {
  try {
    buildAnswer(exec, input);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

describe('buildAnswer: a plain pause', () => {
  const pause = pauseAsk('Ship it?');

  it('approve or CONTINUE go on, reject or STOP stop, with the trimmed message', () => {
    expect(buildAnswer(pause, { verdict: 'approved' })).toEqual({
      verdict: 'approved',
      status: null,
      message: null,
      decisions: null,
    });
    expect(buildAnswer(pause, { status: 'CONTINUE', message: ' ok ' })).toEqual({
      verdict: null,
      status: 'CONTINUE',
      message: 'ok',
      decisions: null,
    });
    expect(buildAnswer(pause, { status: 'STOP', message: '   ' })).toEqual({
      verdict: null,
      status: 'STOP',
      message: null,
      decisions: null,
    });
    expect(buildAnswer(pause, { verdict: 'rejected', message: '\nnot on a Friday\n' })).toEqual({
      verdict: 'rejected',
      status: null,
      message: 'not on a Friday',
      decisions: null,
    });
  });

  it('refuses --answers, an answer verdict and any other status', () => {
    expect(refusal(pause, { answers: { d1: true } })).toBe(
      'call 2 is a plain pause with no decisions; answer it with approve/reject (or --status CONTINUE|STOP)',
    );
    expect(refusal(pause, { verdict: 'answer', message: 'hm' })).toBe(
      `call 2 is a pause(): approve or reject it (shop approve ${pause.runId}.2, shop reject ${pause.runId}.2 "why")`,
    );
    expect(refusal(pause, { status: 'DONE' })).toBe(
      'call 2 is a pause(): answer it with --status CONTINUE or --status STOP, not DONE',
    );
  });
});

describe('buildAnswer: a structured pause', () => {
  const spec = {
    message: 'Launch?',
    decisions: [
      { id: 'copy', type: 'approval', prompt: 'Copy OK?' },
      { id: 'when', type: 'choice', prompt: 'When?', options: ['now', 'monday'], default: 'monday' },
      { id: 'note', type: 'text', prompt: 'Note?', required: false },
    ],
  };
  const pause = pauseAsk(spec);

  it('checks --answers against the decisions', () => {
    expect(
      buildAnswer(pause, { answers: { copy: { value: false, comment: 'typo' }, when: 'now' }, message: ' see notes ' }),
    ).toEqual({
      verdict: null,
      status: null,
      message: 'see notes',
      decisions: {
        copy: { value: false, comment: 'typo' },
        when: { value: 'now', comment: null },
        note: { value: null, comment: null },
      },
    });
    expect(refusal(pause, { answers: { copy: 'yes', when: 'friday' } })).toBe(
      'invalid answers, nothing recorded: copy: must be true or false; when: must be one of now, monday',
    );
  });

  it('approve fills every approval true and the rest from their defaults', () => {
    expect(buildAnswer(pause, { verdict: 'approved' }).decisions).toEqual({
      copy: { value: true, comment: null },
      when: { value: 'monday', comment: null },
      note: { value: null, comment: null },
    });
    expect(buildAnswer(pause, { status: 'CONTINUE' }).decisions).toMatchObject({ copy: { value: true } });
  });

  it('approve is refused when a required decision has no default, naming it', () => {
    const needsBudget = pauseAsk({
      ...spec,
      decisions: [...spec.decisions, { id: 'budget', type: 'number', prompt: 'Budget?' }],
    });
    expect(refusal(needsBudget, { verdict: 'approved' })).toBe(
      'approving needs every decision: budget: required (number: Budget?)',
    );
    expect(actionsOf(needsBudget, { verdict: 'approved' })).toEqual([
      {
        verb: 'decide',
        handle: `${needsBudget.runId}.2`,
        needs: 'answers',
        decisions: ['copy', 'when', 'note', 'budget'],
      },
    ]);
    expect(issuesOf(needsBudget, { verdict: 'approved' })).toEqual([
      { path: 'budget', message: 'required (number: Budget?)' },
    ]);
  });

  it('reject stops without decisions; an answer verdict is refused', () => {
    expect(buildAnswer(pause, { verdict: 'rejected', message: 'no' })).toEqual({
      verdict: 'rejected',
      status: null,
      message: 'no',
      decisions: null,
    });
    expect(refusal(pause, { verdict: 'answer', message: 'x' })).toMatch(/^call 2 is a pause\(\): approve or reject it/);
  });
});

describe('buildAnswer: an agent ask', () => {
  const ask = (awaiting: string | null) => agentAsk({ awaiting });

  it('an explicit status passes through; NEEDS_HUMAN is refused', () => {
    expect(buildAnswer(ask('approval'), { status: 'DONE', message: ' merged ' })).toEqual({
      verdict: null,
      status: 'DONE',
      message: 'merged',
      decisions: null,
    });
    expect(buildAnswer(ask('work'), { status: 'BLOCKED' })).toMatchObject({ status: 'BLOCKED', verdict: null });
    expect(refusal(ask('input'), { status: 'NEEDS_HUMAN' })).toMatch(/^--status NEEDS_HUMAN would not answer anything/);
  });

  it('records verdicts the matrix allows, defaulting to answer', () => {
    expect(buildAnswer(ask('approval'), { verdict: 'approved' })).toEqual({
      verdict: 'approved',
      status: null,
      message: null,
      decisions: null,
    });
    expect(buildAnswer(ask('approval'), { verdict: 'rejected', message: ' add tests ' })).toMatchObject({
      verdict: 'rejected',
      message: 'add tests',
    });
    expect(buildAnswer(ask('input'), { verdict: 'rejected' })).toMatchObject({ verdict: 'rejected', message: null });
    expect(buildAnswer(ask('checkpoint'), { verdict: 'approved' })).toMatchObject({
      verdict: 'approved',
      message: null,
    });
    expect(buildAnswer(ask('work'), { verdict: 'approved' })).toMatchObject({ verdict: 'approved' });
    expect(buildAnswer(ask('review'), { message: 'use postgres' })).toMatchObject({
      verdict: 'answer',
      message: 'use postgres',
    });
  });

  it('rejecting a work hand-off is refused, saying why', () => {
    expect(refusal(ask('work'), { verdict: 'rejected', message: 'cannot' })).toBe(
      'call 2 awaits work: a work hand-off is done by the person: approve it when the work is done, or hand it back with shop answer',
    );
  });

  it('words are required where the agent needs them', () => {
    const words = 'coder awaits input ("which database?"): give the words it needs';
    expect(actionsOf(ask('input'), { verdict: 'approved' })).toEqual([
      { verb: 'answer', handle: '7.2', needs: 'message' },
    ]);
    expect(refusal(ask('input'), { verdict: 'approved' })).toBe(words);
    expect(refusal(ask('input'), { verdict: 'approved', message: '   ' })).toBe(words);
    expect(refusal(ask(null), { verdict: 'approved' })).toBe(words);
    expect(refusal(ask('escalation'), { verdict: 'approved' })).toMatch(
      /^coder awaits escalation \("which database\?"\): give the words/,
    );
    expect(refusal(ask('approval'), { verdict: 'answer' })).toMatch(/^coder awaits approval .*give the words/);
    expect(buildAnswer(ask('escalation'), { verdict: 'approved', message: 'ship the small fix' })).toMatchObject({
      verdict: 'approved',
    });
  });

  it('a rejection that sends the agent back needs to say what to change (a checkpoint redo does not)', () => {
    for (const kind of ['approval', 'review', 'content'] as const) {
      expect(refusal(ask(kind), { verdict: 'rejected' })).toBe(
        'rejecting sends coder back to work: say what to change',
      );
      expect(actionsOf(ask(kind), { verdict: 'rejected' })).toEqual([
        { verb: 'reject', handle: '7.2', needs: 'message' },
      ]);
    }
    expect(buildAnswer(ask('checkpoint'), { verdict: 'rejected' })).toMatchObject({
      verdict: 'rejected',
      message: null,
    });
  });

  it('--answers on the implied "answer" decision becomes an answer verdict', () => {
    expect(buildAnswer(ask('input'), { answers: { answer: ' postgres 16 ' } })).toEqual({
      verdict: 'answer',
      status: null,
      message: 'postgres 16',
      decisions: null,
    });
    expect(refusal(ask(null), { answers: { answer: 3 } })).toBe(
      'invalid answers, nothing recorded: answer: must be text',
    );
    expect(refusal(ask('input'), { answers: { answer: '  ' } })).toMatch(/give the words it needs/);
    expect(refusal(ask('input'), { answers: { approve: true } })).toMatch(
      /^invalid answers, nothing recorded: approve: no such decision \(decisions: answer\)/,
    );
  });

  it('--answers on the implied "approve" decision maps to a verdict by the matrix', () => {
    expect(buildAnswer(ask('approval'), { answers: { approve: true } })).toEqual({
      verdict: 'approved',
      status: null,
      message: null,
      decisions: null,
    });
    expect(buildAnswer(ask('review'), { answers: { approve: { value: false, comment: ' rename it ' } } })).toEqual({
      verdict: 'rejected',
      status: null,
      message: 'rename it',
      decisions: null,
    });
    expect(buildAnswer(ask('content'), { answers: { approve: false }, message: 'too long' })).toMatchObject({
      verdict: 'rejected',
      message: 'too long',
    });
    expect(refusal(ask('work'), { answers: { approve: false } })).toMatch(/^call 2 awaits work: /);
    expect(refusal(ask('escalation'), { answers: { approve: true } })).toMatch(/give the words it needs/);
    expect(refusal(ask('approval'), { answers: {} })).toBe(
      'invalid answers, nothing recorded: approve: required (approval: which database?)',
    );
  });
});
