import { describe, expect, it } from 'vitest';
import { HookRateLimiter, retryAfterSeconds } from './rate-limiter.js';

/** A clock the test moves by hand. */
function fakeClock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms), set: (ms: number) => void (t = ms) };
}
const takeN = (limiter: HookRateLimiter, key: string, n: number) => Array.from({ length: n }, () => limiter.take(key));

describe('HookRateLimiter', () => {
  it("lets a hook's burst through, then refuses with the wait until its next token", () => {
    const clock = fakeClock();
    const limiter = new HookRateLimiter(clock, {
      perKey: { burst: 3, perSecond: 2 },
      global: { burst: 100, perSecond: 100 },
    });
    expect(takeN(limiter, 'gh', 3)).toEqual([true, true, true]);
    expect(limiter.take('gh')).toBe(500);
    clock.advance(499);
    expect(limiter.take('gh')).toBe(1);
    clock.advance(1);
    expect(limiter.take('gh')).toBe(true);
    expect(limiter.take('gh')).toBe(500);
  });

  it('keeps hooks apart: one flooded hook does not stop another', () => {
    const limiter = new HookRateLimiter(fakeClock(), { perKey: { burst: 2, perSecond: 1 } });
    expect(takeN(limiter, 'noisy', 3)).toEqual([true, true, 1000]);
    expect(limiter.take('quiet')).toBe(true);
  });

  it('bounds all hooks together, and a refused delivery spends no token of either bucket', () => {
    const clock = fakeClock();
    const limiter = new HookRateLimiter(clock, {
      perKey: { burst: 5, perSecond: 1 },
      global: { burst: 4, perSecond: 1 },
    });
    expect([...takeN(limiter, 'a', 2), ...takeN(limiter, 'b', 2)]).toEqual([true, true, true, true]);
    expect(limiter.take('c')).toBe(1000);
    clock.advance(1000);
    expect(limiter.take('c')).toBe(true);
    // 'a' was refused by its own bucket only after its own burst, never charged for the global refusals
    clock.advance(10_000);
    expect(takeN(limiter, 'a', 4)).toEqual([true, true, true, true]);
  });

  it('refills no further than the burst, however long it was idle', () => {
    const clock = fakeClock();
    const limiter = new HookRateLimiter(clock, { perKey: { burst: 2, perSecond: 1 } });
    clock.advance(3_600_000);
    expect(takeN(limiter, 'gh', 3)).toEqual([true, true, 1000]);
  });

  it('earns nothing from a clock that steps back', () => {
    const clock = fakeClock(5_000);
    const limiter = new HookRateLimiter(clock, { perKey: { burst: 1, perSecond: 1 } });
    expect(limiter.take('gh')).toBe(true);
    clock.set(0);
    expect(limiter.take('gh')).toBe(1000);
    clock.set(5_999);
    expect(limiter.take('gh')).toBe(1);
    clock.set(6_000);
    expect(limiter.take('gh')).toBe(true);
  });

  it('keeps at most maxKeys buckets, dropping the least recently used', () => {
    const limiter = new HookRateLimiter(fakeClock(), { perKey: { burst: 1, perSecond: 0.001 }, maxKeys: 2 });
    expect(limiter.take('a')).toBe(true);
    expect(limiter.take('b')).toBe(true);
    expect(limiter.take('a')).toBeGreaterThan(0); // a is now the most recent
    expect(limiter.take('c')).toBe(true); // b is dropped
    expect(limiter.size).toBe(2);
    expect(limiter.take('a')).not.toBe(true); // a kept its empty bucket
    expect(limiter.take('b')).toBe(true); // b starts afresh
    for (let i = 0; i < 10_000; i++) limiter.take(`k${i}`);
    expect(limiter.size).toBe(2);
  });

  it('refuses a rate that could never let anything through', () => {
    expect(() => new HookRateLimiter(fakeClock(), { perKey: { burst: 0, perSecond: 1 } })).toThrow(RangeError);
    expect(() => new HookRateLimiter(fakeClock(), { global: { burst: 1, perSecond: 0 } })).toThrow(RangeError);
  });

  it('Retry-After is whole seconds, rounded up, at least 1', () => {
    expect([retryAfterSeconds(1), retryAfterSeconds(1000), retryAfterSeconds(1001)]).toEqual([1, 1, 2]);
  });
});
