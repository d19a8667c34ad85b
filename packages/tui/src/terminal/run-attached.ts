import { spawn } from 'node:child_process';
import type { AttachedCommand, AttachedResult } from '../deps.js';

/**
 * Terminal modes a full-screen program may leave behind: leave the alternate screen, show the
 * cursor, no bracketed paste, no mouse reports, the kitty keyboard protocol popped, no
 * modifyOtherKeys; then a clean screen for the browser to redraw on.
 */
export const RESET_TERMINAL =
  '\x1b[?1049l\x1b[?25h\x1b[?2004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[<u\x1b[>4;0m\x1b[0m\x1b[2J\x1b[3J\x1b[H';

/**
 * Runs a command attached to this terminal and waits for it — the one hand-off of the terminal,
 * for the TUI (Claude Code, an editor) and the CLI (shop continue). Ctrl-C belongs to the child
 * meanwhile (it goes to the whole foreground group): this process ignores SIGINT until then.
 * `reset`: a full-screen program's leftover modes are cleared on it afterwards (the TUI redraws
 * on it); null leaves the terminal as the child left it (the CLI prints on after).
 */
export async function runAttached(
  cmd: AttachedCommand,
  reset: NodeJS.WriteStream | null = process.stdout,
): Promise<AttachedResult> {
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    return await new Promise<AttachedResult>((resolve) => {
      const child = spawn(cmd.command, cmd.args, { cwd: cmd.cwd, env: cmd.env, stdio: 'inherit' });
      child.once('error', (e: NodeJS.ErrnoException) => resolve({ code: null, error: e.code ?? e.message }));
      child.once('exit', (code, signal) => resolve({ code: code ?? (signal ? 128 : null), error: null }));
    });
  } finally {
    process.off('SIGINT', ignore);
    if (reset?.isTTY) reset.write(RESET_TERMINAL);
  }
}
