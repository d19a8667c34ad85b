import { describe, expect, it } from 'vitest';
import { ResumeBackoff } from './resume-backoff.js';

describe('ResumeBackoff', () => {
  it('waits longer after each failure, capped, and gives up at the last attempt', () => {
    const b = new ResumeBackoff({ firstMs: 1000, maxMs: 3000, attempts: 4 });
    expect(b.waiting(1, 0)).toBe(false);
    expect(b.failed(1, 0)).toEqual({ failures: 1, retryInMs: 1000, giveUp: false });
    expect(b.waiting(1, 999)).toBe(true);
    expect(b.waiting(1, 1000)).toBe(false);
    expect(b.failed(1, 1000)).toEqual({ failures: 2, retryInMs: 2000, giveUp: false });
    expect(b.failed(1, 3000)).toEqual({ failures: 3, retryInMs: 3000, giveUp: false });
    expect(b.failed(1, 6000)).toEqual({ failures: 4, retryInMs: 3000, giveUp: true });
    // Other runs are not held back by it.
    expect(b.waiting(2, 6000)).toBe(false);
  });

  it('starts counting afresh after a resume that worked', () => {
    const b = new ResumeBackoff({ firstMs: 1000, maxMs: 60_000, attempts: 3 });
    b.failed(1, 0);
    b.failed(1, 1000);
    b.succeeded(1);
    expect(b.waiting(1, 1001)).toBe(false);
    expect(b.failed(1, 2000)).toEqual({ failures: 1, retryInMs: 1000, giveUp: false });
  });
});
