import { afterEach, describe, expect, it } from 'vitest';
import { localTime, localTimeAgo } from './time.js';

const saved = process.env.TZ;
afterEach(() => {
  process.env.TZ = saved;
});

describe('localTime', () => {
  it('shows the local time with its offset from UTC', () => {
    const t = Date.parse('2026-11-23T13:05:12.000Z');
    process.env.TZ = 'Asia/Kolkata';
    expect(localTime(t)).toBe('2026-11-23 18:35:12 +05:30');
    process.env.TZ = 'America/New_York';
    expect(localTime(t)).toBe('2026-11-23 08:05:12 -05:00');
    process.env.TZ = 'UTC';
    expect(localTime(t)).toBe('2026-11-23 13:05:12 +00:00');
    expect(localTimeAgo(t, t + 125_000)).toBe('2026-11-23 13:05:12 +00:00 (2m ago)');
  });
});
