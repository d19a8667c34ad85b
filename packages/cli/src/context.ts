import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { findProject, type Project } from '@shop/core/project/project';
import type { Store } from '@shop/core/store/store';
import { LiveBoard } from './live-board.js';

/** What every command gets: where the project is, and a store opened on first use. */
export class Context {
  readonly project: Project;
  /** Live lines of running agents, when stdout is a terminal. */
  readonly board = new LiveBoard(process.stdout);
  private store_: Store | null = null;

  constructor(readonly cwd: string, readonly env: NodeJS.ProcessEnv, readonly out: (line: string) => void) {
    this.project = findProject(cwd, env);
  }

  async store(): Promise<Store> {
    if (!this.store_) {
      const { mkdirSync } = await import('node:fs');
      mkdirSync(this.project.home, { recursive: true });
      const { openSqliteStore } = await import('@shop/core/store/sqlite-store');
      this.store_ = openSqliteStore(this.project.dbFile);
    }
    return this.store_;
  }

  close() {
    this.board.close();
    this.store_?.close();
  }
}

/** The folder of the `shop` executable (put on agents' PATH so `shop report` works there). */
export const binDir = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'bin');
