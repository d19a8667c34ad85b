import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { until, type Project } from '../../../../test/e2e/harness.js';

/**
 * A real terminal (tmux, its own server) running one command in a project: for what needs
 * one — raw mode, handing the terminal to a child and taking it back. `screen()` is what is
 * visible now (no scrollback), so leftovers of the child would show.
 */
export class Tmux {
  private readonly socket = `shop-tui-${randomBytes(4).toString('hex')}`;

  constructor(
    private readonly p: Project,
    command: string,
    size = { columns: 120, rows: 30 },
  ) {
    const vars = [
      'SHOP_CLAUDE_BIN',
      'SHOP_STANDIN_LOG',
      'SHOP_STANDIN_SCENARIO',
      'SHOP_USER',
      'CLAUDE_CONFIG_DIR',
    ].flatMap((k) => (p.env[k] ? ['-e', `${k}=${p.env[k]}`] : []));
    this.tmux([
      'new-session',
      '-d',
      '-s',
      'shop',
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      '-c',
      p.dir,
      ...vars,
      `${command}; echo "[exit $?]"; sleep 600`,
    ]);
  }

  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', 'shop']);
  }

  /** Keys as tmux names them ("c", "Enter", "Escape"), each sent on its own. */
  keys(...keys: string[]) {
    for (const key of keys) this.tmux(['send-keys', '-t', 'shop', key]);
  }

  /** Text typed literally, then Enter. */
  type(text: string) {
    this.tmux(['send-keys', '-t', 'shop', '-l', text]);
    this.tmux(['send-keys', '-t', 'shop', 'Enter']);
  }

  /** Waits for `text` on screen; on a timeout the error shows the screen as it was. */
  async waitFor(text: string | RegExp): Promise<string> {
    try {
      return await until(`${text} on screen`, () => {
        const s = this.screen();
        return (typeof text === 'string' ? s.includes(text) : text.test(s)) && s;
      });
    } catch (e) {
      throw new Error(`${(e as Error).message}; the screen:\n${this.screen().trimEnd()}`, { cause: e });
    }
  }

  kill() {
    const path = this.tmux(['display-message', '-p', '#{socket_path}']).trim();
    try {
      this.tmux(['kill-server']);
    } catch {
      /* gone already */
    }
    rmSync(path, { force: true });
  }

  private tmux(args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], {
      env: terminalEnv(this.p.env),
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  }
}

/**
 * A person's terminal, not a CI log: Ink draws only the last frame when `CI` is set (CI
 * systems set it, and the tmux server passes its environment on to the session).
 */
function terminalEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { CI: _ci, CONTINUOUS_INTEGRATION: _cont, ...rest } = env;
  return rest;
}
