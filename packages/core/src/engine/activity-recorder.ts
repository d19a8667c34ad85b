import type { Execution } from '../types.js';
import type { EnginePorts } from './ports.js';

/** At most one progress write per call this often: the stream may say many things a second. */
const WRITE_EVERY_MS = 1000;

/**
 * An agent's latest activity while it works: told at once to whoever prints progress, and
 * recorded on its execution (for shop status, list, the TUI, log -f) at most once a second,
 * the last word always written before the call settles.
 */
export class ActivityRecorder {
  private pending: { text: string; turns: number } | null = null;
  private writtenAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly ports: EnginePorts,
    private readonly runId: number,
    private readonly token: string,
    private readonly exec: Execution,
    private readonly agent: string,
  ) {}

  seen(text: string, turns: number): void {
    this.ports.notifier.notify({
      type: 'agent_activity',
      key: this.exec.key,
      agent: this.agent,
      text,
      since: this.exec.attemptAt ?? this.exec.startedAt,
    });
    this.pending = { text, turns };
    const wait = this.writtenAt + WRITE_EVERY_MS - Date.now();
    if (wait <= 0) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), wait);
  }

  /** Writes what is pending and waits for it (before the call's own result is written). */
  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending) this.flush();
    await this.writing;
  }

  private flush() {
    this.timer = null;
    const p = this.pending;
    if (!p) return;
    this.pending = null;
    this.writtenAt = Date.now();
    // A refused write (the run was taken over) shows at the call's own next write; progress is not worth failing for.
    this.writing = this.writing.then(() =>
      this.ports.store
        .setActivity(this.token, this.runId, this.exec.key, { text: p.text, numTurns: p.turns })
        .catch(() => undefined),
    );
  }
}
