/**
 * Outside text quoted in a message (a command line, an agent's output) is capped, so one
 * line stays one line: a few hundred characters, the rest left in the log it came from.
 */
export const QUOTE_CAP = 300;

export function capText(text: string, max = QUOTE_CAP): string {
  const flat = text.replace(/\s*\n\s*/g, ' ').trim();
  if (flat.length <= max) return flat;
  return `${flat.slice(0, max - 1)}… (${flat.length.toLocaleString('en-US')} characters in all)`;
}

/** A value someone typed, quoted in a one-line message: "like this", capped (a run id, a flag's value). */
export function quoted(text: string, max = 80): string {
  return `"${capText(text, max)}"`;
}

/** A byte count as people read it: 10.5 MB, 438 KB, 12 bytes. */
export function bytes(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)} MB`;
  if (n >= 1e3) return `${Math.round(n / 1e3)} KB`;
  return `${n} bytes`;
}
