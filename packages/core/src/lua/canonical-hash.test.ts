import { describe, expect, it } from 'vitest';
import { canonicalHash, hashText } from './canonical-hash.js';

/** cyrb53 as fingerprints were first recorded with it: its 53 bits as one number, in hex. */
function recordedHash(str: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

describe('hashText', () => {
  it('gives the digits recorded fingerprints hold (never change them: replay compares them)', () => {
    expect(hashText('{"opts":{},"prompt":"step 1"}')).toBe('16be8fa203e160');
    expect(canonicalHash({ b: 1, a: [true, null] })).toBe(hashText('{"a":[true,null],"b":1}'));
  });

  it('agrees with the recorded form on texts of every kind, leading zeros included', () => {
    const texts = ['', 'a', '…', '\u{1F600}', '\ud800'];
    for (let i = 0; i < 20000; i++) texts.push(`{"prompt":"step ${i}","x":${i * 7919}}`);
    let leadingZero = 0;
    for (const t of texts) {
      const got = hashText(t);
      expect(got, t).toBe(recordedHash(t));
      if (got.startsWith('0')) leadingZero++;
    }
    expect(leadingZero).toBeGreaterThan(0);
  });
});
