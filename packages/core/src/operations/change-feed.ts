/** A writer reads the clock a little before its transaction commits: each look goes back this far. */
export const CHANGE_MARGIN_MS = 2_000;
const POLL_MS = 1_000;

/**
 * Where a reader of run changes stands: the newest change it has seen. The next look starts
 * that far back, less the margin — and never past the clock's now, so a clock set back (a
 * test's fast-forward undone, another machine's clock) does not hide the changes written after.
 */
export class ChangeCursor {
  private newest: number;

  constructor(
    private readonly now: () => number,
    start = now(),
  ) {
    this.newest = start;
  }

  /** The time (the store's) to read changes after. */
  since(): number {
    return Math.min(this.newest, this.now()) - CHANGE_MARGIN_MS;
  }

  /** A change a look found. */
  saw(updatedAt: number): void {
    this.newest = Math.max(Math.min(this.newest, this.now()), updatedAt);
  }

  /** Changes seen before this are behind every look from now on. */
  get behind(): number {
    return this.newest - 2 * CHANGE_MARGIN_MS;
  }
}

type ChangedRuns = (since: number) => Promise<{ id: number; updatedAt: number }[]>;

/**
 * Which runs changed, for every live view (the web's pages, the TUI): one poller shared by all
 * subscribers reads only the runs changed since its last look (ShopOperations.changedRuns:
 * runs are touched on every change, and a lease or claim running out counts) and tells each
 * subscriber the ids it has not told before. Polling runs only while someone subscribes.
 */
export class RunChangeFeed {
  private readonly cursor: ChangeCursor;
  /** Each run told, at the change it was told for: a change read again inside the margin is not told twice. */
  private readonly seen = new Map<number, number>();
  private readonly subscribers = new Set<(runs: number[]) => void | Promise<void>>();
  private poller: NodeJS.Timeout | null = null;
  private polling = false;

  constructor(
    private readonly ops: { changedRuns: ChangedRuns; now(): number },
    private readonly onError: (e: unknown) => void,
    private readonly pollMs = POLL_MS,
  ) {
    this.cursor = new ChangeCursor(() => ops.now());
  }

  /** Tells `listener` the runs changed from now on (the first look at once); returns the unsubscribe. */
  subscribe(listener: (runs: number[]) => void | Promise<void>): () => void {
    this.subscribers.add(listener);
    if (!this.poller) {
      this.poller = setInterval(() => void this.poll(), this.pollMs);
      void this.poll();
    }
    return () => {
      this.subscribers.delete(listener);
      if (!this.subscribers.size) this.stop();
    };
  }

  /** Stops polling, whoever still listens (the server is closing). */
  stop(): void {
    if (this.poller) clearInterval(this.poller);
    this.poller = null;
  }

  /** One look: the runs changed since the last one, not told before. */
  async changes(): Promise<number[]> {
    const runs = await this.ops.changedRuns(this.cursor.since());
    const changed: number[] = [];
    for (const run of runs) {
      if (this.seen.get(run.id) !== run.updatedAt) changed.push(run.id);
      this.seen.set(run.id, run.updatedAt);
      this.cursor.saw(run.updatedAt);
    }
    for (const [id, at] of this.seen) if (at < this.cursor.behind) this.seen.delete(id);
    return changed;
  }

  private async poll() {
    if (this.polling) return;
    this.polling = true;
    try {
      const changed = await this.changes();
      if (changed.length) await Promise.all([...this.subscribers].map((s) => s(changed)));
    } catch (e) {
      this.onError(e);
    } finally {
      this.polling = false;
    }
  }
}
