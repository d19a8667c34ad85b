import { UsageError } from '../errors.js';
import { inert, quoted } from '../text.js';
import { MAX_TZ_CHARS } from './schedule.js';

/**
 * The shape of an IANA zone name ("Europe/Berlin", "America/Argentina/Buenos_Aires",
 * "Etc/GMT+1", "UTC"). Checked before Intl sees it, so an offset such as "+01:00" — which some
 * Node versions take and others refuse — never reaches a store that every worker must read.
 */
const ZONE_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+)*$/;

const unknownZone = (tz: string) =>
  new UsageError(
    `time zone ${quoted(inert(tz, false))} is unknown: give an IANA name such as "Europe/Berlin", "America/New_York" or "UTC"`,
  );

/**
 * A time zone a person gave, checked with Intl (whose list, Intl.supportedValuesOf, leaves
 * out "UTC" and the aliases, so a formatter is tried instead), as Intl names it: "utc" is
 * "UTC", "europe/berlin" is "Europe/Berlin".
 */
export function checkZone(tz: string): string {
  if (tz.length > MAX_TZ_CHARS) {
    throw new UsageError(
      `time zone ${quoted(inert(tz, false), 40)} is ${tz.length} characters long, more than ${MAX_TZ_CHARS}`,
    );
  }
  if (!ZONE_NAME.test(tz)) throw unknownZone(tz);
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw unknownZone(tz);
  }
}

/** This machine's time zone by name (what a schedule added here without --tz means); UTC when it has none. */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** One formatter per zone: making one costs far more than using it, and there are a few hundred zones. */
const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(tz: string): Intl.DateTimeFormat {
  let f = formatters.get(tz);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: tz,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZoneName: 'longOffset',
    });
    formatters.set(tz, f);
  }
  return f;
}

/**
 * An instant as ISO 8601 on a zone's clock, with that moment's offset:
 * "2026-03-29T03:00:00+02:00" — the time a person in that zone reads, never mistaken for another.
 */
export function zonedIso(ms: number, tz: string): string {
  const part: Record<string, string> = {};
  for (const p of formatter(tz).formatToParts(new Date(ms))) part[p.type] = p.value;
  const offset = part.timeZoneName.replace(/^GMT/, '') || '+00:00';
  return `${part.year.padStart(4, '0')}-${part.month}-${part.day}T${part.hour}:${part.minute}:${part.second}${offset}`;
}
