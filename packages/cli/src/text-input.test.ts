import { describe, expect, it } from 'vitest';
import { MAX_VALUE_BYTES } from '@shop/core/testing';
import { TEXT_INPUT_CAP } from './text-input.js';

describe('text read from a file or stdin', () => {
  it('is capped at what a value crossing into Lua may hold: a longer prompt would fail the run at its start', () => {
    expect(TEXT_INPUT_CAP).toBe(MAX_VALUE_BYTES);
  });
});
