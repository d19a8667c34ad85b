import { watch, type FSWatcher } from 'chokidar';
import type { SignalSource } from './signal-source.js';
import { makeSignalsDir } from './signals-dir.js';

/**
 * chokidar on the flat signals folder (created before watching — a folder made after
 * watch() can leave the watcher blind), plus a periodic rescan as a safety net, which
 * also lets the engine poll the store for answers recorded by other processes.
 */
export class SignalWatcher implements SignalSource {
  private watcher: FSWatcher;
  private waiters: (() => void)[] = [];
  private timer: NodeJS.Timeout;

  constructor(signalsDir: string, rescanMs = 500) {
    makeSignalsDir(signalsDir);
    this.watcher = watch(signalsDir, { ignoreInitial: true, depth: 0 });
    this.watcher.on('add', () => this.wake());
    this.watcher.on('change', () => this.wake());
    this.timer = setInterval(() => this.wake(), rescanMs);
  }

  next(): Promise<void> {
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
    for (const w of waiters) w();
  }
}
