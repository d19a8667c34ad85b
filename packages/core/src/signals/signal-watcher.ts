import { rmSync } from 'node:fs';
import { watch, type FSWatcher } from 'chokidar';
import type { SignalOptions, SignalSource } from './signal-source.js';
import { makeSignalsDir } from './signals-dir.js';
import { answeredRun, WAKE_SUFFIX } from './wake.js';

/**
 * chokidar on the flat signals folder (created before watching — a folder made after
 * watch() can leave the watcher blind), plus a periodic rescan as a safety net, which
 * also lets the engine poll the store for answers recorded by other processes.
 */
export class SignalWatcher implements SignalSource {
  private watcher: FSWatcher;
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** A change came while nobody waited. */
  private missed = false;

  constructor(signalsDir: string, opts: SignalOptions = {}) {
    const rescanMs = opts.rescanMs ?? 500;
    makeSignalsDir(signalsDir);
    // Ignored by name, before any look at the file: a worker starting many agents sees many signal files come and go.
    const ignored = opts.answersOnly ? (path: string) => path !== signalsDir && !path.endsWith(WAKE_SUFFIX) : undefined;
    this.watcher = watch(signalsDir, { ignoreInitial: true, depth: 0, ignored });
    this.watcher.on('add', (path) => {
      const answered = path.endsWith(WAKE_SUFFIX) ? answeredRun(path) : null;
      if (answered === null || !opts.answered?.(answered, path)) this.wake();
      // An answer's wake-up (wake.ts) has done its work once seen; every watcher had time to see it.
      if (path.endsWith(WAKE_SUFFIX)) setTimeout(() => rmSync(path, { force: true }), 2_000).unref();
    });
    this.watcher.on('change', () => this.wake());
    // 0: no rescan (a worker whose store pushes wakes sweeps on its own).
    if (rescanMs > 0) this.timer = setInterval(() => this.wake(), rescanMs);
  }

  /** Resolves at the next change — at once when one came while nobody was waiting (it is not lost). */
  next(): Promise<void> {
    if (this.missed) {
      this.missed = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    this.wake();
    await this.watcher.close();
  }

  private wake() {
    const waiters = this.waiters;
    this.waiters = [];
    // A change while the owner was busy (between two sleeps) must still wake its next sleep.
    this.missed = waiters.length === 0;
    for (const w of waiters) w();
  }
}
