import type { Word } from './shell-word.js';

// The lexer's shapes (shell-lexer.ts), apart so the word reader can name them without importing it.

export interface Redirect {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&`, `<`, `<&`, `<<`, `<<-`, `<<<`. */
  op: string;
  target: Word;
  /** A heredoc's body (`<<`), or a here-string's word (`<<<`). */
  body?: string;
}

export type Token =
  { t: 'word'; word: Word } | { t: 'op'; op: string } | { t: 'redirect'; redirect: Redirect } | { t: 'arith' };

/** Where a reading is: shared by the scripts nested in one command (their tokens, the budget). */
export interface Lexer {
  src: string;
  pos: number;
  depth: number;
  nested: Token[][];
  heredocs: { redirect: Redirect; strip: boolean; expands: boolean }[];
  budget: { tokens: number };
  /** script(), handed to the word reader (which reads the scripts inside words) so that it need not import this module. */
  script: (lx: Lexer, closer: ')' | null) => Token[];
}
