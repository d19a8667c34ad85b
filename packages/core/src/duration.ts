/** Units a duration may be given in (shop prune --older-than 30d). */
const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/**
 * "30d", "12h", "90m", "45s", "2w" (or "1d12h") in milliseconds; null when it is not one —
 * the caller says what was wrong. A bare number has no unit and is refused: 30 of what?
 */
export function parseDuration(text: string): number | null {
  const s = text.trim().toLowerCase();
  if (!/^(\d+[smhdw])+$/.test(s)) return null;
  let ms = 0;
  for (const [, n, unit] of s.matchAll(/(\d+)([smhdw])/g)) ms += Number(n) * UNITS[unit];
  return Number.isSafeInteger(ms) ? ms : null;
}
