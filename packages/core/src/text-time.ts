const two = (n: number) => String(n).padStart(2, '0');

/**
 * "2026-11-23 14:05:12 +01:00": the local time (TZ decides) with its offset from UTC, so a
 * time in a message is never mistaken for another zone's.
 */
export function localTime(ms: number): string {
  const d = new Date(ms);
  const off = -d.getTimezoneOffset();
  const zone = `${off < 0 ? '-' : '+'}${two(Math.floor(Math.abs(off) / 60))}:${two(Math.abs(off) % 60)}`;
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())} ${zone}`;
}
