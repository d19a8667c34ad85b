import { createInterface, type Interface } from 'node:readline';
import { UsageError } from '@shop/core';
import { printable } from './style.js';

/**
 * Questions at the terminal (or from piped input). One line iterator, made before any
 * input is read: it buffers lines, whereas question() drops those readline emits before
 * it is asked (piped input arrives all at once).
 */
export class Asker {
  private readonly rl: Interface;
  private readonly lines: AsyncIterator<string>;

  constructor(
    private readonly ifClosed: string,
    output: NodeJS.WritableStream = process.stdout,
  ) {
    this.rl = createInterface({ input: process.stdin, output });
    this.lines = this.rl[Symbol.asyncIterator]();
  }

  async ask(question: string): Promise<string> {
    // A prompt may quote the workflow (a default, an option): inert like every other line.
    this.rl.setPrompt(printable(question));
    this.rl.prompt();
    const next = await this.lines.next();
    if (next.done) throw new UsageError(`no answer given (input closed); ${this.ifClosed}`);
    return String(next.value).trim();
  }

  async yesNo(question: string, fallback?: boolean): Promise<boolean> {
    const hint = fallback === undefined ? '[y/n]' : fallback ? '[Y/n]' : '[y/N]';
    for (;;) {
      const a = (await this.ask(`${question} ${hint} `)).toLowerCase();
      if (!a && fallback !== undefined) return fallback;
      if (['y', 'yes'].includes(a)) return true;
      if (['n', 'no'].includes(a)) return false;
    }
  }

  close() {
    this.rl.close();
  }
}
