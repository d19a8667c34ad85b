import { createRequire } from 'node:module';
import { inert } from '@shop/core';

/**
 * How human output looks where it goes. On a terminal: colour, and tables cut to the
 * window's width. On a pipe or a file: plain bytes and whole lines, for scripts.
 * NO_COLOR (https://no-color.org) turns colour off; FORCE_COLOR (not "0"/"false") on, even on a pipe.
 */
export interface OutputStyle {
  color: boolean;
  /** Columns to fit tables into; undefined: no limit. */
  width: number | undefined;
}

export function outputStyle(stream: { isTTY?: boolean; columns?: number }, env: NodeJS.ProcessEnv): OutputStyle {
  const tty = Boolean(stream.isTTY);
  const forced = env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0' && env.FORCE_COLOR !== 'false';
  return {
    color: env.NO_COLOR ? false : forced || tty,
    width: tty && stream.columns ? stream.columns : undefined,
  };
}

const SGR = { green: 32, yellow: 33, red: 31, magenta: 35, cyan: 36, dim: 2 } as const;
export type Colour = keyof typeof SGR;

/**
 * Shop's own colour codes carry this mark in place of ESC until the line is printed: every
 * line goes through printable(), which escapes each control character in it (an agent's text
 * included) and only then turns the marks into ESC. It is random per process and never shown,
 * so text from outside cannot forge one.
 */
let escMark: string | null = null;
/**
 * Made on the first colour (node:crypto is required then, not at start-up: a command printing
 * to a pipe never loads it). Until then no text can hold a mark, and printable() has none to turn.
 */
function mark(): string {
  if (escMark === null) {
    const { randomBytes } = createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto');
    escMark = `\u{F8FF}${randomBytes(8).toString('hex')}\u{F8FF}`;
  }
  return escMark;
}

export const paint = (on: boolean, colour: Colour | undefined, text: string) => {
  if (!on || !colour) return text;
  const m = mark();
  return `${m}[${SGR[colour]}m${text}${m}[0m`;
};

/**
 * A line (or block of lines) as it may reach a terminal: control characters and escape
 * sequences from agents, workflows and people shown escaped, Shop's own colours kept. Every
 * write to stdout and stderr goes through it.
 */
export function printable(text: string): string {
  const shown = inert(text);
  return escMark === null ? shown : shown.split(escMark).join('\x1b');
}

const STATUS_COLOURS: Record<string, Colour> = {
  completed: 'green',
  waiting: 'cyan',
  waiting_human: 'yellow',
  failed: 'red',
  stuck: 'magenta',
  interrupted: 'red',
  running: 'cyan',
};

/** A run's or a call's status word in its colour (green completed, yellow waiting, red failed …). */
export const statusColour = (status: string): Colour | undefined => STATUS_COLOURS[status];
