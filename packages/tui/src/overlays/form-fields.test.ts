import { describe, expect, it } from 'vitest';
import type { Decision } from '@shop/core';
import { formProblems, initialFields } from './form-fields.js';

const decisions: Decision[] = [
  { id: 'ship', type: 'approval', prompt: 'Ship: now?', required: true },
  { id: 'n', type: 'number', prompt: 'How many?', required: true, constraints: { min: 2 } },
  { id: 'note', type: 'text', prompt: 'Anything?', required: false },
];

describe('the form checked as core checks the answer', () => {
  it("each problem lands on its decision's field, by the issue's path", () => {
    const [ship, n, note] = initialFields(decisions, false);
    expect(formProblems([ship, { ...n, text: '1' }, note])).toEqual({
      ship: 'required (approval: Ship: now?)',
      n: 'must be ≥ 2',
    });
    expect(formProblems([{ ...ship, picked: true }, { ...n, text: '3' }, note])).toEqual({});
  });
});
