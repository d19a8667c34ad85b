import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { parseCatchUp, parseOverlap } from './schedule-options.js';

describe('schedule options', () => {
  it('takes each overlap and catch-up policy, in any case', () => {
    expect(['skip', 'queue', 'allow'].map(parseOverlap)).toEqual(['skip', 'queue', 'allow']);
    expect(['none', ' Latest ', 'ALL'].map(parseCatchUp)).toEqual(['none', 'latest', 'all']);
  });

  it('refuses anything else in one line naming the choices and the default', () => {
    expect(() => parseOverlap('parallel')).toThrow(UsageError);
    expect(() => parseOverlap('parallel')).toThrow(
      /^overlap "parallel" is not one of skip \(the default\), queue, allow$/,
    );
    expect(() => parseCatchUp('')).toThrow(/^catch-up "" is not one of none, latest \(the default\), all$/);
    expect(() => parseCatchUp('some\x1b[2J')).toThrow(/^catch-up "some\\x1b\[2J" is not one of/);
  });
});
