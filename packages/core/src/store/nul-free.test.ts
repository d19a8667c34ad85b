import { describe, expect, it } from 'vitest';
import { fingerprint, matchesRecord, type CallRequest } from '../lua/requests.js';
import { nulFreeStore, withoutNul } from './nul-free.js';

describe('withoutNul', () => {
  it('replaces NUL with U+FFFD in strings, nested values and keys, keeping key order', () => {
    const got = withoutNul({ a: 'x\u0000y', ['k\u0000']: [1, 'z\u0000', { deep: '\u0000' }], b: null, c: true });
    expect(got).toEqual({ a: 'x\uFFFDy', ['k\uFFFD']: [1, 'z\uFFFD', { deep: '\uFFFD' }], b: null, c: true });
    expect(Object.keys(got)).toEqual(['a', 'k\uFFFD', 'b', 'c']);
  });

  it('hands back the very value when it holds no NUL, and leaves what is not plain data alone', () => {
    const clean = { a: ['b', { c: 'd' }], n: 1 };
    expect(withoutNul(clean)).toBe(clean);
    const bytes = Buffer.from([0, 1, 0]);
    expect(withoutNul({ gz: bytes }).gz).toBe(bytes);
    const mixed = { keep: clean.a, fix: 'a\u0000' };
    // Only what changed is copied.
    expect(withoutNul(mixed).keep).toBe(clean.a);
  });
});

describe('nulFreeStore', () => {
  it('hands every method NUL-free arguments, on the store itself (its private state intact)', async () => {
    class Fake {
      #seen: unknown[] = [];
      async write(...args: unknown[]) {
        this.#seen.push(...args);
      }
      seen() {
        return this.#seen;
      }
    }
    const store = nulFreeStore(new Fake());
    await store.write('a\u0000', { reason: 'b\u0000' }, 7);
    expect(store.seen()).toEqual(['a\uFFFD', { reason: 'b\uFFFD' }, 7]);
    expect(store.write).toBe(store.write);
  });
});

describe('a recorded call whose text held a NUL', () => {
  it('matches the call on replay: the store kept U+FFFD for the NUL the workflow passes again', () => {
    const req = { type: 'sh', cmd: 'printf "a\u0000b"', argv: null, opts: {} } as unknown as CallRequest;
    const recorded = withoutNul(fingerprint(req));
    expect(recorded).toContain('a\uFFFDb');
    expect(matchesRecord(recorded, req)).toBe(true);
    expect(matchesRecord(recorded, { ...req, cmd: 'printf "a?b"' } as CallRequest)).toBe(false);
  });
});
