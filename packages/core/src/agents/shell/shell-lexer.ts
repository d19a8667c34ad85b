import { readArithmetic } from './shell-quotes.js';
import { expandingText, readWord, ENDS_WORD } from './shell-word-reader.js';
import { Unreadable } from './shell-word.js';
import type { Lexer, Redirect, Token } from './shell-tokens.js';

/**
 * A POSIX shell (bash) command line cut into words, operators and redirections, as the gates
 * read it: quotes and escapes removed, $'…' decoded, comments dropped, heredoc bodies bound.
 * The scripts that run inside it — $( … ), `…`, <( … ), >( … ), and $( … ) in an expanding
 * heredoc — are cut too and kept apart (`nested`): each is read as a script of its own.
 */

export const MAX_DEPTH = 12;
const MAX_TOKENS = 20_000;

/** The tokens of `src` and of every script nested in it (each its own list). */
export function lex(src: string): { tokens: Token[]; nested: Token[][] } {
  const lx: Lexer = { src, pos: 0, depth: 0, nested: [], heredocs: [], budget: { tokens: 0 }, script };
  const tokens = script(lx, null);
  return { tokens, nested: lx.nested };
}

const OPERATORS = ['&&', '||', ';;&', ';;', ';&', '|&', '|', '&', ';', '(', ')'];
const REDIRECT = /^(\d*)(<<<|<<-|<<|<>|<&|>>|>&|>\||<|>)|^(&>>|&>)/;
/** After these words a `((` is arithmetic, not two subshells. */
const BEFORE_ARITH = new Set(['if', 'elif', 'while', 'until', 'then', 'else', 'do', '!', '{', 'for']);

/** The tokens of a script from lx.pos, up to its end or (closer) the `)` that closes it. */
export function script(lx: Lexer, closer: ')' | null): Token[] {
  if (++lx.depth > MAX_DEPTH) throw new Unreadable(`it nests more than ${MAX_DEPTH} levels deep`);
  const tokens: Token[] = [];
  const push = (t: Token) => {
    if (++lx.budget.tokens > MAX_TOKENS) throw new Unreadable(`it has more than ${MAX_TOKENS} words`);
    tokens.push(t);
  };
  let parens = 0;
  for (;;) {
    skipBlanks(lx);
    const { src } = lx;
    if (lx.pos >= src.length) {
      if (closer) throw new Unreadable('a $( … ) is not closed');
      if (lx.heredocs.length) throw new Unreadable('a heredoc has no end line');
      lx.depth--;
      return tokens;
    }
    const c = src[lx.pos]!;
    if (c === '#') {
      while (lx.pos < src.length && src[lx.pos] !== '\n') lx.pos++;
      continue;
    }
    if (c === '\n') {
      lx.pos++;
      push({ t: 'op', op: '\n' });
      heredocBodies(lx);
      continue;
    }
    if (c === ')' && closer && parens === 0) {
      lx.pos++;
      if (lx.heredocs.length) throw new Unreadable('a heredoc has no end line');
      lx.depth--;
      return tokens;
    }
    if (src.startsWith('((', lx.pos) && arithmeticHere(tokens) && readArithmetic(lx, lx.pos + 2) !== null) {
      lx.pos = readArithmetic(lx, lx.pos + 2)!;
      push({ t: 'arith' });
      continue;
    }
    if (src.startsWith('<(', lx.pos) || src.startsWith('>(', lx.pos)) {
      push({ t: 'word', word: readWord(lx) });
      continue;
    }
    const r = REDIRECT.exec(src.slice(lx.pos, lx.pos + 16));
    if (r) {
      lx.pos += r[0].length;
      push({ t: 'redirect', redirect: redirect(lx, r[2] ?? r[3]!) });
      continue;
    }
    const op = OPERATORS.find((o) => src.startsWith(o, lx.pos));
    if (op) {
      lx.pos += op.length;
      if (op === '(') parens++;
      if (op === ')') parens--;
      push({ t: 'op', op });
      continue;
    }
    push({ t: 'word', word: readWord(lx) });
  }
}

function arithmeticHere(tokens: Token[]): boolean {
  const last = tokens.at(-1);
  return !last || last.t === 'op' || (last.t === 'word' && BEFORE_ARITH.has(last.word.text));
}

function skipBlanks(lx: Lexer): void {
  for (;;) {
    const c = lx.src[lx.pos];
    if (c === ' ' || c === '\t') lx.pos++;
    else if (c === '\\' && lx.src[lx.pos + 1] === '\n') lx.pos += 2;
    else return;
  }
}

function redirect(lx: Lexer, op: string): Redirect {
  skipBlanks(lx);
  const start = lx.pos;
  if (lx.pos >= lx.src.length || ENDS_WORD.includes(lx.src[lx.pos]!)) throw new Unreadable(`a ${op} has no target`);
  const target = readWord(lx);
  const r: Redirect = { op, target };
  if (op === '<<<') r.body = target.text;
  if (op === '<<' || op === '<<-') {
    // A quoted delimiter keeps the body literal; a bare one lets $( … ) in it run.
    const expands = !/['"\\]/.test(lx.src.slice(start, lx.pos));
    lx.heredocs.push({ redirect: r, strip: op === '<<-', expands });
  }
  return r;
}

/** The bodies of the heredocs opened on the line just ended, each up to its delimiter line. */
function heredocBodies(lx: Lexer): void {
  for (const h of lx.heredocs.splice(0)) {
    const lines: string[] = [];
    for (;;) {
      if (lx.pos >= lx.src.length)
        throw new Unreadable(`a heredoc has no end line ${JSON.stringify(h.redirect.target.text)}`);
      let end = lx.src.indexOf('\n', lx.pos);
      if (end < 0) end = lx.src.length;
      const line = lx.src.slice(lx.pos, end);
      lx.pos = Math.min(end + 1, lx.src.length);
      if ((h.strip ? line.replace(/^\t+/, '') : line) === h.redirect.target.text) break;
      lines.push(line);
    }
    const body = lines.join('\n');
    h.redirect.body = body;
    if (h.expands) {
      expandingText(lx, body);
      // What a shell fed this body reads: \$ \` \\ unescaped (expansions themselves stay as written).
      h.redirect.body = body.replace(/\\([$`\\])|\\\n/g, (_m, c: string | undefined) => c ?? '');
    }
  }
}
