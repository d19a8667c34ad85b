import { buildAnswer } from '@shop/core';
import { agentAsk, pauseAsk, pendingJson } from '@shop/core/testing';
import { describe, expect, it } from 'vitest';
import { formAnswer } from './form-answer.js';

const release = pauseAsk({
  message: 'Ship?',
  decisions: [
    { id: 'go', type: 'approval', prompt: 'Ship it?' },
    { id: 'env', type: 'choice', prompt: 'Where?', options: ['staging', 'prod'] },
    { id: 'checks', type: 'multi_choice', prompt: 'Checks', options: ['lint', 'unit', 'e2e'], constraints: { min: 1 } },
    { id: 'note', type: 'text', prompt: 'Note', required: false },
    { id: 'pct', type: 'number', prompt: 'Rollout %', constraints: { min: 1, max: 100 }, default: 10 },
    { id: 'day', type: 'date', prompt: 'When?', required: false },
  ],
});
const ask = pendingJson(7, release);
const post = (fields: [string, string][]) => new URLSearchParams([['handle', '7.2'], ['csrf', 'x'], ...fields]);
const parsed = (a: typeof ask, fields: [string, string][]) => {
  const r = formAnswer(a, post(fields));
  if (!r.ok) throw new Error(r.error);
  return r.input;
};

describe('formAnswer', () => {
  it('types every decision: booleans, choices, lists, numbers, dates; comments box the value; blanks are left out', () => {
    const input = parsed(ask, [
      ['verb', 'decide'],
      ['d.go', 'true'],
      ['c.go', ' looks good '],
      ['d.env', 'prod'],
      ['d.checks', 'lint'],
      ['d.checks', 'e2e'],
      ['d.note', ''],
      ['d.pct', '25.5'],
      ['d.day', '2026-12-01'],
      ['c.day', ''],
      ['message', ''],
    ]);
    expect(input).toEqual({
      answers: {
        go: { value: true, comment: 'looks good' },
        env: 'prod',
        checks: ['lint', 'e2e'],
        pct: 25.5,
        day: '2026-12-01',
      },
      message: null,
    });
    // What the core records from it: the default fills the blank, the rest as given.
    const recorded = buildAnswer(release, input);
    expect(recorded.decisions).toEqual({
      go: { value: true, comment: 'looks good' },
      env: { value: 'prod', comment: null },
      checks: { value: ['lint', 'e2e'], comment: null },
      note: { value: null, comment: null },
      pct: { value: 25.5, comment: null },
      day: { value: '2026-12-01', comment: null },
    });
  });

  it('no box ticked is an empty list, which the core refuses against min; a blank number takes its default', () => {
    const input = parsed(ask, [
      ['verb', 'decide'],
      ['d.go', 'false'],
      ['d.env', 'staging'],
      ['d.pct', ''],
    ]);
    expect(input.answers).toEqual({ go: false, env: 'staging', checks: [] });
    expect(() => buildAnswer(release, input)).toThrow(/checks: choose at least 1/);
  });

  it('a comment without a value keeps the comment (the default or "required" follows in the core)', () => {
    const input = parsed(ask, [
      ['verb', 'decide'],
      ['d.go', 'true'],
      ['d.env', 'prod'],
      ['d.checks', 'unit'],
      ['c.pct', 'whatever you think'],
    ]);
    expect((input.answers as Record<string, unknown>).pct).toEqual({ value: null, comment: 'whatever you think' });
    expect(buildAnswer(release, input).decisions!.pct).toEqual({ value: 10, comment: 'whatever you think' });
  });

  it('refuses what cannot be typed, naming the decision', () => {
    const bad = (fields: [string, string][]) => {
      const r = formAnswer(ask, post([['verb', 'decide'], ...fields]));
      return r.ok ? 'ok' : r.error;
    };
    expect(bad([['d.pct', 'ten']])).toBe('pct (Rollout %): "ten" is not a number');
    expect(bad([['d.pct', 'Infinity']])).toMatch(/^pct .*not a number/);
    expect(bad([['d.go', 'maybe']])).toBe('go (Ship it?): answer yes or no');
    expect(
      bad([
        ['d.env', 'a'],
        ['d.env', 'b'],
      ]),
    ).toBe('env (Where?): give one value');
    expect(bad([['d.nope', '1']])).toMatch(/^nope: no such decision \(decisions: go, env, checks, note, pct, day\)$/);
    expect(bad([['c.nope', 'x']])).toMatch(/^nope: no such decision/);
    expect(
      bad([
        ['d.checks', 'lint'],
        ['d.checks', 'lint'],
        ['d.checks', 'lint'],
        ['d.checks', 'lint'],
      ]),
    ).toMatch(/more choices than there are options/);
    expect(bad([['d.note', 'x'.repeat(10_001)]])).toMatch(/^note \(Note\): too long/);
    expect(bad([['c.go', 'x'.repeat(2_001)]])).toMatch(/^go: the comment is too long/);
  });

  it('the core checks what the form could type: a number out of range, an unknown choice, a bad date', () => {
    const input = parsed(ask, [
      ['verb', 'decide'],
      ['d.go', 'true'],
      ['d.env', 'moon'],
      ['d.checks', 'unit'],
      ['d.pct', '500'],
      ['d.day', '2026-02-30'],
    ]);
    expect(() => buildAnswer(release, input)).toThrow(
      /env: must be one of staging, prod; pct: must be ≤ 100; day: must be an ISO 8601 date/,
    );
  });

  it('verbs: approve, reject with words, answer; unknown verbs and a message too long are refused', () => {
    const approval = pendingJson(7, agentAsk({ awaiting: 'approval', waitingFor: 'merge?' }));
    expect(
      parsed(approval, [
        ['verb', 'approve'],
        ['message', '  ship it '],
      ]),
    ).toEqual({ verdict: 'approved', message: 'ship it' });
    expect(
      parsed(approval, [
        ['verb', 'reject'],
        ['message', 'rename the flag'],
      ]),
    ).toEqual({ verdict: 'rejected', message: 'rename the flag' });
    expect(
      formAnswer(
        approval,
        post([
          ['verb', 'reject'],
          ['message', '  '],
        ]),
      ),
    ).toEqual({ ok: false, error: 'reject needs words: feedback' });
    const input = pendingJson(7, agentAsk({ awaiting: 'input' }));
    expect(formAnswer(input, post([['verb', 'answer']]))).toEqual({ ok: false, error: 'write your answer first' });
    expect(
      parsed(input, [
        ['verb', 'answer'],
        ['message', 'Postgres'],
      ]),
    ).toEqual({ verdict: 'answer', message: 'Postgres' });
    expect(formAnswer(input, post([['verb', 'continue']]))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^unknown answer "continue"/),
    });
    expect(formAnswer(input, post([]))).toMatchObject({ ok: false });
    expect(
      formAnswer(
        input,
        post([
          ['verb', 'answer'],
          ['message', 'x'.repeat(20_001)],
        ]),
      ),
    ).toMatchObject({ ok: false, error: expect.stringMatching(/too long/) });
  });

  it('a pause takes no free answer; an agent ask and a plain pause take no decisions', () => {
    const plain = pendingJson(7, pauseAsk('Deploy?'));
    expect(
      formAnswer(
        plain,
        post([
          ['verb', 'answer'],
          ['message', 'hi'],
        ]),
      ),
    ).toMatchObject({ ok: false, error: expect.stringMatching(/approve, reject or its decisions/) });
    expect(formAnswer(plain, post([['verb', 'decide']]))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/no decisions/),
    });
    expect(
      formAnswer(
        pendingJson(7, agentAsk()),
        post([
          ['verb', 'decide'],
          ['d.answer', 'x'],
        ]),
      ),
    ).toMatchObject({ ok: false });
    expect(parsed(plain, [['verb', 'reject']])).toEqual({ verdict: 'rejected', message: null });
  });

  it("an agent's question with choices of its own (AskUserQuestion) takes them, checked by core as the CLI's are; a plain agent ask has none to submit", () => {
    const question = agentAsk({
      awaiting: 'input',
      waitingFor: 'Which database?',
      askDecisions: [
        {
          id: 'q1',
          type: 'choice',
          prompt: 'Which database?',
          required: true,
          options: [
            { value: 'Postgres', label: 'Postgres', description: undefined },
            { value: 'SQLite', label: 'SQLite', description: undefined },
          ],
        },
      ],
    });
    const input = parsed(pendingJson(7, question), [
      ['verb', 'decide'],
      ['d.q1', 'SQLite'],
    ]);
    expect(input).toEqual({ answers: { q1: 'SQLite' }, message: null });
    expect(buildAnswer(question, input)).toMatchObject({ verdict: 'approved', decisions: { q1: { value: 'SQLite' } } });
    const plain = formAnswer(
      pendingJson(7, agentAsk({ awaiting: 'input' })),
      post([
        ['verb', 'decide'],
        ['d.answer', 'x'],
      ]),
    );
    expect(plain).toMatchObject({ ok: false, error: expect.stringMatching(/this ask has no decisions to submit/) });
  });
});
