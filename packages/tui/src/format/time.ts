/** "45s", "12m", "3h", "2d": how long ago, compact enough for a column. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

/** "2m 15s", "1h 5m", "45s": how long something took or has been going on. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h ${m % 60}m`;
  return `${Math.floor(h / 24)}d ${h % 24}h`;
}

/** "$0.42", or "-" when nothing was spent (or nothing is known). */
export const usd = (n: number | null | undefined): string => (n && n > 0 ? `$${n.toFixed(2)}` : '-');

/** The first line of a text, for one-line cells (the cell truncates the rest). */
export const oneLine = (text: string | null | undefined): string => (text ?? '').split('\n')[0].trim();

/** A workflow's result in one line: a string as it is, anything else as JSON. */
export const resultLine = (result: unknown): string =>
  oneLine(typeof result === 'string' ? result : JSON.stringify(result));
