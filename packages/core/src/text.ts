/**
 * Outside text quoted in a message (a command line, an agent's output) is capped, so one
 * line stays one line: a few hundred characters, the rest left in the log it came from.
 */
const QUOTE_CAP = 300;

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

/**
 * Control characters that would act on a terminal rather than show: C0 (ESC, CR, BEL …),
 * DEL, C1 (0x80–0x9f: an 8-bit CSI is one of them), and the bidirectional marks, overrides
 * and isolates that reorder what is shown ("Trojan source"). Line feed is apart: it is kept
 * where a block of several lines is meant.
 */
const CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
const CONTROL_OR_LF = /[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Record<string, string> = { '\t': '\\t', '\r': '\\r', '\n': '\\n' };

/**
 * C0 as \x1b; DEL, C1 and bidi as \u007f: a JSON escape, so a JSON document that passes
 * through (JSON.stringify leaves those raw) stays valid and means the same data.
 */
function escapeControl(c: string): string {
  const code = c.charCodeAt(0);
  return (
    SHORT[c] ?? (code < 0x20 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`)
  );
}

/**
 * Text from agents, workflows or people made inert for a terminal or a notification: every
 * control character shown escaped (`\x1b]0;pwned\x07`), so what an agent wrote is read, never
 * obeyed — no title change, no cleared screen, no line rewritten by a carriage return.
 * `lines` keeps line feeds (a block meant to span lines); otherwise they are escaped too.
 */
export function inert(text: string, lines = true): string {
  return text.replace(lines ? CONTROL : CONTROL_OR_LF, escapeControl);
}
