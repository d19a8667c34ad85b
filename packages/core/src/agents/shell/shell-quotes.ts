import { Unreadable } from './shell-word.js';

/** The pieces of bash syntax the lexer reads whole: $'…', (( … )), ${…}. */

const SIMPLE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** $'…' from just after its opening quote: the decoded text and where it ends. */
export function readAnsiC(src: string, from: number): { text: string; end: number } {
  let text = '';
  let i = from;
  for (;;) {
    if (i >= src.length) throw new Unreadable('a quote is not closed');
    const c = src[i]!;
    if (c === "'") return { text, end: i + 1 };
    if (c !== '\\') {
      text += c;
      i++;
      continue;
    }
    const e = src[i + 1] ?? '';
    const num = (re: RegExp, base: number) => {
      const m = re.exec(src.slice(i + 2));
      if (!m) return false;
      text += String.fromCodePoint(Math.min(parseInt(m[0], base), 0x10ffff));
      i += 2 + m[0].length;
      return true;
    };
    if (e in SIMPLE_ESCAPES) {
      text += SIMPLE_ESCAPES[e];
      i += 2;
    } else if (/[0-7]/.test(e)) {
      const m = /^[0-7]{1,3}/.exec(src.slice(i + 1))!;
      text += String.fromCharCode(parseInt(m[0], 8) & 0xff);
      i += 1 + m[0].length;
    } else if (e === 'x' && num(/^[0-9a-fA-F]{1,2}/, 16)) continue;
    else if (e === 'u' && num(/^[0-9a-fA-F]{1,4}/, 16)) continue;
    else if (e === 'U' && num(/^[0-9a-fA-F]{1,8}/, 16)) continue;
    else if (e === 'c' && i + 2 < src.length) {
      text += String.fromCharCode(src.charCodeAt(i + 2) & 0x1f);
      i += 3;
    } else {
      text += `\\${e}`;
      i += 2;
    }
  }
}

/**
 * An arithmetic (( … )) from just after its `((`: the index after its `))`, or null when the
 * parentheses close otherwise (then it is two subshells, as bash reads it). A command
 * substitution inside arithmetic is not read: unreadable.
 */
export function readArithmetic(lx: { src: string }, from: number): number | null {
  const { src } = lx;
  let depth = 0;
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '`' || (c === '$' && src[i + 1] === '('))
      throw new Unreadable('a command substitution inside arithmetic cannot be read');
    // Quotes are skipped as bash skips them: a `))` inside one does not end it.
    if (c === '\\') i++;
    else if (c === "'" || c === '"') i = closingQuote(src, i);
    else if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) return src[i + 1] === ')' ? i + 2 : null;
      depth--;
    }
  }
  return null;
}

/** ${…} from just after its `{`: the index after its `}`. A substitution inside one is not read: unreadable. */
export function readBraced(src: string, from: number): number {
  let depth = 0;
  for (let i = from; i < src.length; i++) {
    const c = src[i];
    if (c === '`' || (c === '$' && src[i + 1] === '('))
      throw new Unreadable('a command substitution inside ${…} cannot be read');
    if (c === '\\') i++;
    else if (c === "'" || c === '"') i = closingQuote(src, i);
    else if (c === '{') depth++;
    else if (c === '}') {
      if (depth === 0) return i + 1;
      depth--;
    }
  }
  throw new Unreadable('a ${ is not closed');
}

/** The index of the quote closing the one at `open` (a backslash escapes inside "…"); unclosed: unreadable. */
function closingQuote(src: string, open: number): number {
  const q = src[open];
  for (let i = open + 1; i < src.length; i++) {
    if (q === '"' && src[i] === '\\') i++;
    else if (src[i] === q) return i;
  }
  throw new Unreadable('a quote is not closed');
}
