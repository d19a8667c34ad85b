import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { until, type Project } from './harness.js';

/** A detached tmux session (own server socket) running one command in the project, in a real terminal. */
export class Terminal {
  private readonly socket = `shop-test-${randomBytes(4).toString('hex')}`;
  private readonly socketPath: string;

  constructor(
    private readonly p: Project,
    command: string,
    width = 160,
  ) {
    const vars = [
      'SHOP_CLAUDE_BIN',
      'SHOP_STANDIN_LOG',
      'SHOP_STANDIN_SCENARIO',
      'SHOP_STANDIN_SPANS',
      'SHOP_USER',
      'CLAUDE_CONFIG_DIR',
    ].flatMap((k) => (p.env[k] ? ['-e', `${k}=${p.env[k]}`] : []));
    // The shell line outlives the command, so its last screen and exit code stay readable.
    this.tmux([
      'new-session',
      '-d',
      '-s',
      'shop',
      '-x',
      String(width),
      '-y',
      '50',
      '-c',
      p.dir,
      ...vars,
      `${command}; echo "[exit $?]"; sleep 600`,
    ]);
    this.socketPath = this.tmux(['display-message', '-p', '#{socket_path}']).trim();
  }

  /** What the pane shows (and its scrollback); with `escapes`, its colours as escape sequences too. */
  screen(escapes = false): string {
    return this.tmux(['capture-pane', '-p', '-J', ...(escapes ? ['-e'] : []), '-S', '-200', '-t', 'shop']);
  }

  /** Types `text` literally, then Enter. */
  type(text: string) {
    if (text) this.tmux(['send-keys', '-t', 'shop', '-l', text]);
    this.tmux(['send-keys', '-t', 'shop', 'Enter']);
  }

  /** Presses keys by tmux's names ("C-c", "Escape"). */
  keys(...names: string[]) {
    this.tmux(['send-keys', '-t', 'shop', ...names]);
  }

  async waitFor(text: string | RegExp): Promise<string> {
    return until(`${text} on screen`, () => {
      const s = this.screen();
      return (typeof text === 'string' ? s.includes(text) : text.test(s)) && s;
    });
  }

  /** In an agent's interactive session (a stand-in's): answers it, waits for its report, leaves with /exit; the last screen. */
  async answerAndLeave(answer = 'use postgres'): Promise<string> {
    this.type(answer);
    await this.waitFor('reported DONE');
    this.type('/exit');
    return this.waitFor('[exit ');
  }

  kill() {
    try {
      this.tmux(['kill-server']);
    } catch {
      /* already gone */
    }
    // tmux leaves its socket file behind.
    rmSync(this.socketPath, { force: true });
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], {
      env: this.p.env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
}
