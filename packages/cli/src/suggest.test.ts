import { describe, expect, it } from 'vitest';
import { editDistance, suggest } from './suggest.js';

const COMMANDS = [
  'init',
  'run',
  'list',
  'status',
  'log',
  'resume',
  'stop',
  'inbox',
  'continue',
  'approve',
  'reject',
  'answer',
  'signal',
  'watch',
  'tui',
  'test',
  'replay',
  'report',
];

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent swaps as one edit each', () => {
    expect(editDistance('list', 'list')).toBe(0);
    expect(editDistance('lst', 'list')).toBe(1);
    expect(editDistance('lisst', 'list')).toBe(1);
    expect(editDistance('lost', 'list')).toBe(1);
    expect(editDistance('stauts', 'status')).toBe(1);
    expect(editDistance('', 'abc')).toBe(3);
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });
});

describe('suggest', () => {
  it('finds the closest command within two edits', () => {
    expect(suggest('lst', COMMANDS)).toBe('list');
    expect(suggest('stauts', COMMANDS)).toBe('status');
    expect(suggest('aprove', COMMANDS)).toBe('approve');
    expect(suggest('contnue', COMMANDS)).toBe('continue');
    expect(suggest('Replay', COMMANDS)).toBe('replay');
  });

  it('falls back to the only candidate the input begins', () => {
    expect(suggest('inb', COMMANDS)).toBe('inbox');
    expect(suggest('wat', COMMANDS)).toBe('watch');
    // "re…" begins reject, resume, replay, report: no single answer.
    expect(suggest('re', COMMANDS)).toBeUndefined();
  });

  it('suggests nothing far off, nor for short words two edits from everything', () => {
    expect(suggest('frobnicate', COMMANDS)).toBeUndefined();
    expect(suggest('xy', COMMANDS)).toBeUndefined();
    expect(suggest('', COMMANDS)).toBeUndefined();
  });
});
