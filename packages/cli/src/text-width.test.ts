import { describe, expect, it } from 'vitest';
import { cutToWidth, textWidth } from './text-width.js';

/** Widths as terminals (and string-width, which Ink uses) show them. */
const CASES: [string, number][] = [
  ['plain ascii', 11],
  ['', 0],
  ['デプロイしますか？', 18], // katakana and a fullwidth question mark
  ['漢字 ok', 7],
  ['한국어', 6], // Hangul syllables
  ['\u1100\u1161\u11a8', 2], // the same as conjoining jamo: one syllable
  ['ＡＢＣ', 6], // fullwidth Latin
  ['ｶﾀｶﾅ', 4], // halfwidth katakana stays narrow
  ['Cafe\u0301', 4], // a combining accent takes no column
  ['a\u200bb', 2], // zero-width space
  ['\u00ad', 0], // soft hyphen
  ['🚀', 2],
  ['👍🏽', 2], // a skin tone joins its emoji
  ['👨\u200d👩\u200d👧', 2], // a ZWJ family is one emoji
  ['🇯🇵', 2], // a flag: two regional indicators
  ['🇯🇵🇫🇷', 4],
  ['❤\ufe0f', 2], // a text-style symbol made emoji
  ['❤', 1],
  ['1\ufe0f\u20e3', 2], // a keycap
  ['→ … é', 5], // ambiguous-width characters count narrow
];

describe('textWidth: terminal columns', () => {
  for (const [text, width] of CASES) {
    it(`${JSON.stringify(text)} takes ${width}`, () => expect(textWidth(text)).toBe(width));
  }
});

describe('cutToWidth', () => {
  it('cuts to the columns given, never splitting a wide character, marks kept with theirs', () => {
    expect(cutToWidth('デプロイしますか？', 7)).toBe('デプロ…');
    expect(textWidth(cutToWidth('デプロイしますか？', 8))).toBeLessThanOrEqual(8);
    expect(cutToWidth('デプロイしますか？', 8)).toBe('デプロ…');
    expect(cutToWidth('Cafe\u0301 noir', 6)).toBe('Cafe\u0301…');
    expect(cutToWidth('👨\u200d👩\u200d👧 family', 4)).toBe('👨\u200d👩\u200d👧…');
    expect(cutToWidth('short', 5)).toBe('short');
    expect(cutToWidth('abcdefg', 6)).toBe('abcde…');
  });
});
