import { render } from 'ink-testing-library';
import { vi } from 'vitest';
import { App } from '../App.js';
import type { AttachedCommand, AttachedResult, TuiDeps } from '../deps.js';
import { testOps, type TestWorld } from './world.js';

export const KEYS = {
  up: '\x1b[A',
  down: '\x1b[B',
  right: '\x1b[C',
  left: '\x1b[D',
  enter: '\r',
  esc: '\x1b',
  backspace: '\x7f',
  tab: '\t',
} as const;

export interface RenderOptions {
  rows?: number;
  env?: NodeJS.ProcessEnv;
  /** Stands in for the terminal handed to Claude Code or an editor. */
  runAttached?: (cmd: AttachedCommand) => Promise<AttachedResult>;
  /** Called where the CLI would start `shop resume <id>` in the background. */
  onResume?: (runId: number) => void;
}

/**
 * The one way tests render the browser: on the world's store and clock, with fake hand-overs,
 * no colours, a fast poll. Keys go in with `press`; `waitFor` polls the last frame.
 */
export function renderTui(w: TestWorld, opts: RenderOptions = {}) {
  const attached: AttachedCommand[] = [];
  const resumed: number[] = [];
  const deps: TuiDeps = {
    ops: testOps(w),
    responder: 'ann',
    env: { NO_COLOR: '1', ...opts.env },
    pollMs: 20,
    rows: opts.rows ?? 20,
    resumeInBackground(runId) {
      resumed.push(runId);
      opts.onResume?.(runId);
      return { log: `.shop/runs/${runId}/tui-resume.log` };
    },
    async runAttached(cmd) {
      attached.push(cmd);
      return opts.runAttached ? opts.runAttached(cmd) : { code: 0, error: null };
    },
  };
  const app = render(<App deps={deps} />);
  const frame = () => app.lastFrame() ?? '';
  const waitFor = async (text: string | RegExp): Promise<string> => {
    await vi.waitFor(
      () => {
        const f = frame();
        if (typeof text === 'string' ? !f.includes(text) : !text.test(f))
          throw new Error(`not on screen: ${text}\n${f}`);
      },
      { timeout: 3000, interval: 10 },
    );
    return frame();
  };
  const press = async (...keys: string[]) => {
    for (const key of keys) {
      app.stdin.write(key);
      // A lone Esc is told from a sequence on the next turn; a render follows its state.
      await new Promise((r) => setTimeout(r, 15));
    }
  };
  /** Retries an assertion on the frame until it holds (renders follow keys a moment later). */
  const until = (check: () => void) => vi.waitFor(check, { timeout: 3000, interval: 10 });
  /** Waits for the first look at the store (and Ink's input to be listening). */
  const ready = async () => {
    await until(() => {
      if (!/^Shop runs — /.test(frame()) || frame().includes('reading runs…'))
        throw new Error(`not ready:\n${frame()}`);
    });
  };
  /**
   * Takes the question an action on a run ends with (ConfirmAction): once it shows, a moment
   * passes on the world's clock and y is pressed, as a person would.
   */
  const confirm = async () => {
    await until(() => {
      if (!/\[y\] .+ \(after a pause\)/.test(frame())) throw new Error(`no question to confirm:\n${frame()}`);
    });
    w.later(1);
    await press('y');
  };
  /** The frame's lines, trailing spaces trimmed. */
  const lines = () =>
    frame()
      .split('\n')
      .map((l) => l.trimEnd());
  return { ...app, frame, lines, waitFor, until, ready, press, confirm, attached, resumed, deps };
}
