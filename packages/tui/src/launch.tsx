import { render, type RenderOptions } from 'ink';
import { App } from './App.js';
import type { TuiDeps } from './deps.js';
import { runAttached } from './terminal/run-attached.js';
import { yogaReady } from './yoga-ready.js';

export type { AttachedCommand, AttachedResult, TuiDeps } from './deps.js';

/** What the CLI passes: everything but how commands get the terminal (this package knows that). */
export type TuiOptions = Omit<TuiDeps, 'runAttached'> & Partial<Pick<TuiDeps, 'runAttached'>>;

/**
 * Runs the browser on this terminal until `q` (or Ctrl-C). 0 when the person quit; 1 after
 * an internal error, which Ink has shown in its error view.
 */
export async function runTui(
  options: TuiOptions,
  io: Pick<RenderOptions, 'stdin' | 'stdout' | 'stderr'> = {},
): Promise<number> {
  await yogaReady();
  const deps: TuiDeps = { runAttached: (cmd) => runAttached(cmd), ...options };
  const app = render(<App deps={deps} />, { exitOnCtrlC: true, patchConsole: !io.stdout, ...io });
  try {
    await app.waitUntilExit();
    return 0;
  } catch {
    return 1;
  }
}
