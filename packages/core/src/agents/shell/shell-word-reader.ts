import type { Lexer } from './shell-tokens.js';
import { readAnsiC, readArithmetic, readBraced } from './shell-quotes.js';
import { Unreadable, type Word } from './shell-word.js';

/**
 * One shell word read from the lexer's place: quotes and escapes removed, $'…' decoded, each
 * expansion kept as written and marked (its value is not known), each substitution's script
 * read as a script of its own into the lexer's `nested`.
 */

/** Unquoted, these end a word. */
export const ENDS_WORD = ' \t\n;&|()<>';

/** The substitutions in text that expands as in double quotes (a heredoc's body), read as scripts. */
export function expandingText(lx: Lexer, text: string): void {
  const sub: Lexer = { ...lx, src: text, pos: 0, heredocs: [] };
  const w = newWord();
  while (sub.pos < text.length) {
    const c = text[sub.pos]!;
    if (c === '\\') sub.pos += 2;
    else if (c === '$') dollar(sub, w, true);
    else if (c === '`') backtick(sub, w);
    else sub.pos++;
  }
}

type Building = { text: string; active: string; dynamic: boolean };
const newWord = (): Building => ({ text: '', active: '', dynamic: false });
const add = (w: Building, text: string, active: '0' | '1') => {
  w.text += text;
  w.active += active.repeat(text.length);
};

export function readWord(lx: Lexer): Word {
  const w = newWord();
  const { src } = lx;
  if (src.startsWith('<(', lx.pos) || src.startsWith('>(', lx.pos)) {
    lx.pos += 2;
    lx.nested.push(lx.script(lx, ')'));
    add(w, '/dev/fd/…', '0');
    w.dynamic = true;
  }
  while (lx.pos < src.length) {
    const c = src[lx.pos]!;
    if (c === '(' && w.text && w.active.at(-1) === '1' && '?*+@!'.includes(w.text.at(-1)!))
      throw new Unreadable('an extended glob ( @(…) !(…) ) cannot be read');
    if (c === '(' && /^[A-Za-z_][A-Za-z0-9_]*\+?=$/.test(w.text)) {
      // An array assignment: its values are data, but substitutions in them run.
      lx.pos++;
      lx.script(lx, ')');
      add(w, '(…)', '0');
      continue;
    }
    if (ENDS_WORD.includes(c)) break;
    if (c === '\\') {
      const next = src[lx.pos + 1];
      if (next === '\n') lx.pos += 2;
      else if (next === undefined) {
        add(w, '\\', '0');
        lx.pos++;
      } else {
        add(w, next, '0');
        lx.pos += 2;
      }
    } else if (c === "'") {
      const end = src.indexOf("'", lx.pos + 1);
      if (end < 0) throw new Unreadable('a quote is not closed');
      add(w, src.slice(lx.pos + 1, end), '0');
      lx.pos = end + 1;
    } else if (c === '"') {
      lx.pos++;
      doubleQuoted(lx, w);
    } else if (c === '$') dollar(lx, w, false);
    else if (c === '`') backtick(lx, w);
    else {
      add(w, c, '1');
      lx.pos++;
    }
  }
  return w;
}

function doubleQuoted(lx: Lexer, w: Building): void {
  const { src } = lx;
  for (;;) {
    if (lx.pos >= src.length) throw new Unreadable('a quote is not closed');
    const c = src[lx.pos]!;
    if (c === '"') return void lx.pos++;
    if (c === '\\' && '$`"\\\n'.includes(src[lx.pos + 1] ?? '')) {
      if (src[lx.pos + 1] !== '\n') add(w, src[lx.pos + 1]!, '0');
      lx.pos += 2;
    } else if (c === '$') dollar(lx, w, true);
    else if (c === '`') backtick(lx, w);
    else {
      add(w, c, '0');
      lx.pos++;
    }
  }
}

/** `$…` at lx.pos: a quoted form ($'…', $"…"), a substitution, an expansion, or a plain `$`. */
function dollar(lx: Lexer, w: Building, inDouble: boolean): void {
  const { src } = lx;
  const next = src[lx.pos + 1];
  if (!inDouble && next === "'") {
    const { text, end } = readAnsiC(src, lx.pos + 2);
    add(w, text, '0');
    lx.pos = end;
  } else if (!inDouble && next === '"') {
    lx.pos += 2;
    doubleQuoted(lx, w);
  } else if (next === '(' && src[lx.pos + 2] === '(' && readArithmetic(lx, lx.pos + 3) !== null) {
    const end = readArithmetic(lx, lx.pos + 3)!;
    add(w, src.slice(lx.pos, end), '0');
    w.dynamic = true;
    lx.pos = end;
  } else if (next === '(') {
    lx.pos += 2;
    lx.nested.push(lx.script(lx, ')'));
    add(w, '$(…)', '0');
    w.dynamic = true;
  } else if (next === '{') {
    const end = readBraced(src, lx.pos + 2);
    add(w, src.slice(lx.pos, end), '0');
    w.dynamic = true;
    lx.pos = end;
  } else if (next !== undefined && /[A-Za-z_]/.test(next)) {
    const m = /^[A-Za-z_][A-Za-z0-9_]*/.exec(src.slice(lx.pos + 1))!;
    add(w, `$${m[0]}`, '0');
    w.dynamic = true;
    lx.pos += 1 + m[0].length;
  } else if (next !== undefined && /[0-9@*#?$!-]/.test(next)) {
    add(w, `$${next}`, '0');
    w.dynamic = true;
    lx.pos += 2;
  } else {
    add(w, '$', inDouble ? '0' : '1');
    lx.pos++;
  }
}

/** `…` at lx.pos: its text (\` \$ \\ unescaped) read as a script of its own. */
function backtick(lx: Lexer, w: Building): void {
  const { src } = lx;
  let inner = '';
  let i = lx.pos + 1;
  for (;;) {
    if (i >= src.length) throw new Unreadable('a `…` is not closed');
    const c = src[i]!;
    if (c === '`') break;
    if (c === '\\' && '`$\\'.includes(src[i + 1] ?? '')) {
      inner += src[i + 1];
      i += 2;
    } else {
      inner += c;
      i++;
    }
  }
  lx.pos = i + 1;
  const sub: Lexer = { ...lx, src: inner, pos: 0, heredocs: [] };
  lx.nested.push(lx.script(sub, null));
  add(w, '`…`', '0');
  w.dynamic = true;
}
