import type { Key } from 'ink';

const PLAIN: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};

/** A key with nothing but characters: what Ink reports for typed text. */
function isPlain(key: Key): boolean {
  return !(
    key.upArrow ||
    key.downArrow ||
    key.leftArrow ||
    key.rightArrow ||
    key.pageDown ||
    key.pageUp ||
    key.home ||
    key.end ||
    key.return ||
    key.escape ||
    key.ctrl ||
    key.tab ||
    key.backspace ||
    key.delete ||
    key.meta
  );
}

/** One character as the key it is when typed on its own (Enter, Tab, Backspace, Ctrl+letter, text). */
function keyOf(ch: string): [string, Key] {
  if (ch === '\r' || ch === '\n') return ['', { ...PLAIN, return: true }];
  if (ch === '\t') return ['', { ...PLAIN, tab: true }];
  if (ch === '\x7f' || ch === '\b') return ['', { ...PLAIN, backspace: true }];
  const code = ch.codePointAt(0)!;
  if (code >= 1 && code <= 26) return [String.fromCharCode(code + 96), { ...PLAIN, ctrl: true }];
  return [ch, { ...PLAIN, shift: /[A-Z]/.test(ch) }];
}

/**
 * Keys typed faster than the terminal is read arrive as one input ("jjA", "lgtm\r"): Ink
 * hands them over as if pasted. Each must count, in order: on a screen of single-key
 * commands every character is a key; in a text field (`keepText`) runs of text stay
 * together (a paste is one edit) while Enter, Tab, Backspace and Ctrl keys are keys.
 */
export function splitKeys(input: string, key: Key, keepText = false): [string, Key][] {
  const chars = [...input];
  if (chars.length < 2 || !isPlain(key)) return [[input, key]];
  const keys: [string, Key][] = [];
  for (const ch of chars) {
    const [text, k] = keyOf(ch);
    const last = keys.at(-1);
    if (keepText && isPlain(k) && last && isPlain(last[1])) last[0] += text;
    else keys.push([text, k]);
  }
  return keys;
}
