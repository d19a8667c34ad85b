import { dirname } from 'node:path';
import { findProject, type Project } from '@shop/core/project/project';
import { shippedFile } from '@shop/core/project/shipped-file';
import type { Store } from '@shop/core/store/store';
import { storeError } from '@shop/core/store/store-errors';
import { LiveBoard } from './live-board.js';
import { outputStyle, type OutputStyle } from './style.js';

/** What every command gets: where the project is, and a store opened on first use. */
export class Context {
  readonly project: Project;
  /** Live lines of running agents, when stdout is a terminal. */
  board = new LiveBoard(process.stdout);
  /** Where questions to the person are written (stderr once stdout holds a JSON document). */
  prompts: NodeJS.WritableStream = process.stdout;
  /** Colour and table width for human output on stdout (a terminal, or a pipe). */
  readonly style: OutputStyle;
  private store_: Store | null = null;

  constructor(readonly cwd: string, readonly env: NodeJS.ProcessEnv, public out: (line: string) => void) {
    this.project = findProject(cwd, env);
    this.style = outputStyle(process.stdout, env);
  }

  /**
   * With --json stdout holds one JSON document: the lines a person reads (progress, what was
   * answered) go to stderr instead. Returns the stdout writer for the document.
   */
  divertToStderr(): (line: string) => void {
    const stdout = this.out;
    this.board.close();
    this.board = new LiveBoard(process.stderr);
    this.prompts = process.stderr;
    this.out = (line) => process.stderr.write(`${line}\n`);
    return stdout;
  }

  async store(): Promise<Store> {
    if (!this.store_) {
      const { mkdirSync } = await import('node:fs');
      try {
        mkdirSync(this.project.home, { recursive: true, mode: 0o700 });
      } catch (e) {
        throw storeError(e, this.project.dbFile, true) ?? e;
      }
      const { openSqliteStore } = await import('@shop/core/store/sqlite-store');
      const { nodeClock } = await import('@shop/core/engine/node-clock');
      // The engine's clock (SHOP_CLOCK_FILE fast-forwards it in tests): what the store judges by
      // (a claim's age) and what the engine's timers are due by are one time.
      this.store_ = openSqliteStore(this.project.dbFile, nodeClock(this.env).now);
    }
    return this.store_;
  }

  close() {
    this.board.close();
    this.store_?.close();
  }
}

/**
 * The folder of the `shop` executable (put on agents' PATH so `shop report` works there),
 * found by walking up: this module is in dist/ or, bundled, in dist/bundle/.
 */
export const binDir = dirname(shippedFile('bin/shop', import.meta.url));
