import type { ShopOperations } from '@shop/core';

/** A command given the whole terminal (Claude Code, an editor) until it exits. */
export interface AttachedCommand {
  command: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
}

/** How it ended: its exit code, or why it could not start. */
export interface AttachedResult {
  code: number | null;
  error: string | null;
}

/** Everything the run browser needs from its host (the CLI); tests pass twins. */
export interface TuiDeps {
  /**
   * Core's operations: every read (runs, asks, a run's view and trail) and every change
   * (answer, open a session, stop) goes through them; the browser never touches the store.
   * Their liveness gives the clock for ages and tells a live driver from a gone one.
   */
  ops: ShopOperations;
  /** Who answers (--by, SHOP_USER, git user.name, the OS user). */
  responder: string;
  /**
   * After an answer no live owner takes in: resume the run without tying it to this process
   * (and without printing over the screen). Returns where its output goes.
   */
  resumeInBackground(runId: number): { log: string };
  /** Runs a command attached to the terminal; the browser has let go of it meanwhile. */
  runAttached(cmd: AttachedCommand): Promise<AttachedResult>;
  /** SHOP_CLAUDE_BIN, VISUAL / EDITOR, PATH, NO_COLOR. */
  env: NodeJS.ProcessEnv;
  /** How often the store is read for changes (ms); default 500. */
  pollMs?: number;
  /** The screen's height when the output stream cannot tell (tests). */
  rows?: number;
}
