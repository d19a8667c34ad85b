import { describe, expect, it } from 'vitest';
import { checkZone, hostTimeZone, zonedIso } from './zone.js';

const at = (iso: string) => Date.parse(iso);

describe('zonedIso', () => {
  it("shows an instant on the zone's clock with that moment's offset", () => {
    expect(zonedIso(at('2026-03-29T01:00:00Z'), 'Europe/Berlin')).toBe('2026-03-29T03:00:00+02:00');
    expect(zonedIso(at('2026-01-05T14:00:00Z'), 'America/New_York')).toBe('2026-01-05T09:00:00-05:00');
    expect(zonedIso(at('2026-01-05T14:00:00Z'), 'Asia/Kolkata')).toBe('2026-01-05T19:30:00+05:30');
    expect(zonedIso(at('2026-01-05T14:00:00Z'), 'UTC')).toBe('2026-01-05T14:00:00+00:00');
  });

  it('tells the two passes of a repeated hour apart by their offsets', () => {
    expect(zonedIso(at('2026-10-25T00:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30:00+02:00');
    expect(zonedIso(at('2026-10-25T01:30:00Z'), 'Europe/Berlin')).toBe('2026-10-25T02:30:00+01:00');
  });

  it('reads back as the same instant', () => {
    const t = at('2026-07-01T12:34:56Z');
    for (const tz of ['Europe/Berlin', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Kiritimati']) {
      expect(Date.parse(zonedIso(t, tz))).toBe(t);
    }
  });
});

describe('time zones', () => {
  it("names this machine's zone as one checkZone takes", () => {
    expect(checkZone(hostTimeZone())).toBe(hostTimeZone());
  });
});
