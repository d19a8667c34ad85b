import type { Redirect, Token } from './shell-tokens.js';
import { expandBraces, isAssignment, isBare, literal, Unreadable, type Word } from './shell-word.js';

/**
 * A script's tokens cut into simple commands: the pieces between `&&`, `||`, `;`, `|`, `&`,
 * newlines, ( … ) and { …; }, with the keywords of if/while/until/for around them dropped.
 * A piece of syntax the gates do not follow (case, coproc, a parenthesis inside a command,
 * unbalanced parentheses) makes the script unreadable.
 */
export interface SimpleCommand {
  /** Leading NAME=value words. */
  assignments: Word[];
  /** The program and its arguments, braces expanded. */
  words: Word[];
  redirects: Redirect[];
}

/** Keywords that open or continue a compound command: the command follows them. */
const LEADING = new Set(['if', 'then', 'elif', 'else', 'do', 'while', 'until', '!', '{']);
/** Keywords that close one: only redirections and operators follow them. */
const CLOSING = new Set(['fi', 'done', '}', 'esac']);
const SEPARATORS = new Set(['&&', '||', ';', '|', '|&', '&', '\n', ';;', ';&', ';;&']);

export function simpleCommands(tokens: Token[]): SimpleCommand[] {
  const out: SimpleCommand[] = [];
  let cur: SimpleCommand = empty();
  let parens = 0;
  /** Skipping a for/select header (`for x in a b`) up to its separator. */
  let header = false;
  let afterFunction = false;
  const end = () => {
    if (cur.words.length || cur.assignments.length || cur.redirects.length) out.push(cur);
    cur = empty();
  };
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    if (tok.t === 'arith') continue;
    if (tok.t === 'redirect') {
      if (!header) cur.redirects.push(tok.redirect);
      continue;
    }
    if (tok.t === 'op') {
      if (SEPARATORS.has(tok.op)) {
        header = false;
        end();
      } else if (tok.op === '(') {
        if (
          cur.words.length === 1 &&
          !cur.assignments.length &&
          tokens[i + 1]?.t === 'op' &&
          (tokens[i + 1] as { op: string }).op === ')'
        ) {
          // name() { …; }: a function's name is not a command; its body is read as any group.
          cur = empty();
          i++;
        } else if (cur.words.length || cur.assignments.length)
          throw new Unreadable('a parenthesis inside a command cannot be read');
        else parens++;
      } else if (tok.op === ')') {
        end();
        if (--parens < 0) throw new Unreadable('a ) closes nothing');
      }
      continue;
    }
    const word = tok.word;
    if (header) continue;
    if (afterFunction) {
      afterFunction = false;
      continue;
    }
    if (!cur.words.length && !cur.assignments.length) {
      const kw = ['case', 'coproc', 'select', 'for', 'function', '[[', ...LEADING, ...CLOSING].find((k) =>
        isBare(word, k),
      );
      if (kw === 'case' || kw === 'coproc') throw new Unreadable(`a ${kw} statement cannot be read`);
      if (kw === 'for' || kw === 'select') {
        header = true;
        continue;
      }
      if (kw === 'function') {
        afterFunction = true;
        continue;
      }
      if (kw === '[[') {
        i = conditional(tokens, i, cur);
        continue;
      }
      if (kw) continue;
    }
    if (!cur.words.length && isAssignment(word)) {
      cur.assignments.push(word);
      continue;
    }
    cur.words.push(...expandBraces(word));
  }
  end();
  if (parens !== 0) throw new Unreadable('a ( is not closed');
  return out;
}

/** [[ … ]]: its words, operators among them, are one command (`[[`); returns the index of `]]`. */
function conditional(tokens: Token[], from: number, cur: SimpleCommand): number {
  cur.words.push(literal('[['));
  for (let i = from + 1; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.t === 'word') {
      cur.words.push(t.word);
      if (isBare(t.word, ']]')) return i;
    } else if (t.t === 'op') cur.words.push(literal(t.op));
    else if (t.t === 'redirect') cur.words.push(literal(t.redirect.op), t.redirect.target);
  }
  throw new Unreadable('a [[ is not closed');
}

const empty = (): SimpleCommand => ({ assignments: [], words: [], redirects: [] });
