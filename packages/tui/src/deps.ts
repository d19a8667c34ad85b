import type { EnginePorts } from '@shop/core/engine/ports';

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
  /** The engine's ports: the store read and answered through, the clock for ages, who is live. */
  ports: EnginePorts;
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
