import { describe, expect, it } from 'vitest';
import { decisions } from '../engine/testing/executions.js';
import { issueLine } from '../errors.js';
import { approveAll, overallStatus, validateAnswers } from './validate-answers.js';

/** The one-line error for `value` given to a single decision, or 'ok' with the stored value. */
function check(decision: Record<string, unknown>, value: unknown) {
  const r = validateAnswers(decisions({ id: 'd', prompt: 'Q?', ...decision }), { d: value });
  return r.ok ? { ok: r.answers.d.value } : r.issues.map(issueLine);
}

describe('validateAnswers: each type', () => {
  it('approval takes a boolean', () => {
    expect(check({ type: 'approval' }, true)).toEqual({ ok: true });
    expect(check({ type: 'approval' }, false)).toEqual({ ok: false });
    expect(check({ type: 'approval' }, 'yes')).toEqual(['d: must be true or false']);
    expect(check({ type: 'approval' }, 1)).toEqual(['d: must be true or false']);
  });

  it('choice takes one of its option values', () => {
    const choice = { type: 'choice', options: ['now', { value: 'later', label: 'Next week' }] };
    expect(check(choice, 'later')).toEqual({ ok: 'later' });
    expect(check(choice, 'Next week')).toEqual(['d: must be one of now, later']);
    expect(check(choice, 3)).toEqual(['d: must be one of now, later']);
  });

  it('multi_choice takes a subset of the options, within min/max count', () => {
    const multi = { type: 'multi_choice', options: ['a', 'b', 'c'], constraints: { min: 1, max: 2 } };
    expect(check(multi, ['a', 'c'])).toEqual({ ok: ['a', 'c'] });
    expect(check(multi, ['a', 'z'])).toEqual(['d: must be a list drawn from a, b, c']);
    expect(check(multi, 'a')).toEqual(['d: must be a list drawn from a, b, c']);
    expect(check(multi, [])).toEqual(['d: choose at least 1']);
    expect(check(multi, ['a', 'b', 'c'])).toEqual(['d: choose at most 2']);
  });

  it('text checks min/max length and pattern', () => {
    const text = { type: 'text', constraints: { min: 2, max: 5, pattern: '^[a-z]+$' } };
    expect(check(text, 'abc')).toEqual({ ok: 'abc' });
    expect(check(text, 'a')).toEqual(['d: must be at least 2 characters']);
    expect(check(text, 'abcdef')).toEqual(['d: must be at most 5 characters']);
    expect(check(text, 'AB')).toEqual(['d: must match /^[a-z]+$/']);
    expect(check(text, 42)).toEqual(['d: must be text']);
  });

  it('number checks min/max', () => {
    const num = { type: 'number', constraints: { min: 1, max: 10 } };
    expect(check(num, 10)).toEqual({ ok: 10 });
    expect(check(num, 2.5)).toEqual({ ok: 2.5 });
    expect(check(num, 0)).toEqual(['d: must be ≥ 1']);
    expect(check(num, 11)).toEqual(['d: must be ≤ 10']);
    expect(check(num, '5')).toEqual(['d: must be a number']);
  });

  it('date takes an ISO 8601 date or date-time that exists', () => {
    const bad = ['d: must be an ISO 8601 date (YYYY-MM-DD or a date-time)'];
    for (const ok of [
      '2026-02-17',
      '2024-02-29',
      '2026-02-17T17:00:00Z',
      '2026-02-17T17:00:00.000+02:00',
      '2026-02-17 09:30',
    ]) {
      expect(check({ type: 'date' }, ok), ok).toEqual({ ok });
    }
    for (const no of ['17/02/2026', 'tomorrow', '2026-13-01', '2026-02-30', '2025-02-29', '2026-2-1'])
      expect(check({ type: 'date' }, no), no).toEqual(bad);
    expect(check({ type: 'date' }, 20260217)).toEqual(['d: must be an ISO 8601 date']);
  });
});

describe('validateAnswers: presence, defaults and boxing', () => {
  const list = decisions(
    { id: 'ok', type: 'approval', prompt: 'Ship?' },
    { id: 'when', type: 'choice', prompt: 'When?', options: ['now', 'later'], default: 'later' },
    { id: 'note', type: 'text', prompt: 'Anything else?', required: false },
  );

  it('a required decision without an answer or default is an error naming its type and prompt', () => {
    expect(validateAnswers(list, {})).toEqual({
      ok: false,
      issues: [{ path: 'ok', message: 'required (approval: Ship?)' }],
    });
    expect(validateAnswers(list, { ok: null })).toEqual({
      ok: false,
      issues: [{ path: 'ok', message: 'required (approval: Ship?)' }],
    });
  });

  it('defaults fill in, optional ones become null, and defaults are checked too', () => {
    expect(validateAnswers(list, { ok: true })).toEqual({
      ok: true,
      answers: {
        ok: { value: true, comment: null },
        when: { value: 'later', comment: null },
        note: { value: null, comment: null },
      },
    });
    const falseDefault = decisions({ id: 'trial', type: 'approval', prompt: 'Trial?', default: false });
    expect(validateAnswers(falseDefault, {})).toEqual({
      ok: true,
      answers: { trial: { value: false, comment: null } },
    });
    // A default that breaks its own rules is refused when pause() runs, not at approval time.
    expect(() => decisions({ id: 'c', type: 'choice', prompt: 'C?', options: ['x'], default: 'y' })).toThrow(
      /"default"[\s\S]*must be one of x/,
    );
  });

  it('an answer may be boxed as {value, comment}; the comment is kept, a non-string comment dropped', () => {
    const r = validateAnswers(list, {
      ok: { value: false, comment: 'not yet' },
      when: 'now',
      note: { value: null, comment: 'n/a' },
    });
    expect(r).toEqual({
      ok: true,
      answers: {
        ok: { value: false, comment: 'not yet' },
        when: { value: 'now', comment: null },
        note: { value: null, comment: 'n/a' },
      },
    });
    expect(validateAnswers(list, { ok: { value: true, comment: 5 } })).toMatchObject({
      ok: true,
      answers: { ok: { value: true, comment: null } },
    });
    expect(validateAnswers(list, { ok: { value: 'yes', comment: 'hm' } })).toEqual({
      ok: false,
      issues: [{ path: 'ok', message: 'must be true or false' }],
    });
  });

  it('unknown ids are named together with the known ones', () => {
    expect(validateAnswers(list, { ok: true, shipit: true })).toEqual({
      ok: false,
      issues: [{ path: 'shipit', message: 'no such decision (decisions: ok, when, note)' }],
    });
  });

  it('a payload that is not an object is refused with an example', () => {
    const why = [{ path: '', message: 'answers must be a JSON object keyed by decision id, e.g. {"d1": true}' }];
    for (const raw of [null, true, 'yes', 3, [true], undefined])
      expect(validateAnswers(list, raw)).toEqual({ ok: false, issues: why });
  });

  it('reports every problem at once, unknown ids first', () => {
    expect(validateAnswers(list, { when: 'never', note: 7, extra: 1 })).toEqual({
      ok: false,
      issues: [
        { path: 'extra', message: 'no such decision (decisions: ok, when, note)' },
        { path: 'ok', message: 'required (approval: Ship?)' },
        { path: 'when', message: 'must be one of now, later' },
        { path: 'note', message: 'must be text' },
      ],
    });
  });
});

describe('overallStatus', () => {
  const list = decisions(
    { id: 'a', type: 'approval', prompt: 'A?' },
    { id: 'b', type: 'approval', prompt: 'B?', required: false },
    { id: 'c', type: 'choice', prompt: 'C?', options: ['x', 'y'] },
  );
  const v = (a: unknown, b: unknown) => ({
    a: { value: a, comment: null },
    b: { value: b, comment: null },
    c: { value: 'x', comment: null },
  });

  it('counts only the approval decisions that were answered', () => {
    expect(
      overallStatus(decisions({ id: 't', type: 'text', prompt: 'T?' }), { t: { value: 'hi', comment: null } }),
    ).toBe('all_approved');
    expect(overallStatus(list, v(true, true))).toBe('all_approved');
    expect(overallStatus(list, v(true, null))).toBe('all_approved');
    expect(overallStatus(list, v(false, false))).toBe('all_rejected');
    expect(overallStatus(list, v(false, null))).toBe('all_rejected');
    expect(overallStatus(list, v(true, false))).toBe('partial');
  });
});

describe('approveAll', () => {
  it('sets every approval decision true and leaves the rest to their defaults', () => {
    const list = decisions(
      { id: 'a', type: 'approval', prompt: 'A?' },
      { id: 'n', type: 'number', prompt: 'N?', default: 3 },
      { id: 'b', type: 'approval', prompt: 'B?', default: false },
    );
    expect(approveAll(list)).toEqual({ a: true, b: true });
    expect(validateAnswers(list, approveAll(list))).toMatchObject({
      ok: true,
      answers: { a: { value: true }, n: { value: 3 }, b: { value: true } },
    });
    expect(approveAll(decisions())).toEqual({});
  });
});
