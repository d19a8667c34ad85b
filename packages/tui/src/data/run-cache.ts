import { ChangeCursor, liveOwner } from '@shop/core';
import type { RunWithWaiting, ShopOperations } from '@shop/core';

/**
 * Every run, kept current by reading only the runs changed since the last look (runs are
 * touched on every change and indexed on updated_at), newest first.
 */
export class RunCache {
  private readonly byId = new Map<number, RunWithWaiting>();
  /** Where the next look starts: core's change rule (the web's feed reads by it too), by the store's clock. */
  private readonly cursor: ChangeCursor;
  private loaded = false;
  private sorted: RunWithWaiting[] = [];
  /** Runs whose expired lease was read again and found unchanged: their driver is gone. */
  private readonly gone = new Map<number, number>();
  /** Goes up whenever a run changed. */
  version = 0;
  /** Whether the screen was given the first look yet. */
  loadedOnce = false;

  constructor(private readonly ops: Pick<ShopOperations, 'listRuns' | 'run' | 'liveness'>) {
    this.cursor = new ChangeCursor(() => ops.liveness.clock.now(), -Infinity);
  }

  get runs(): readonly RunWithWaiting[] {
    return this.sorted;
  }

  get(id: number): RunWithWaiting | undefined {
    return this.byId.get(id);
  }

  /** One look at the store; true when something changed. */
  async refresh(): Promise<boolean> {
    const rows = await this.ops.listRuns(this.loaded ? { changedSince: this.cursor.since() } : {});
    this.loaded = true;
    let changed = false;
    for (const run of rows) {
      if (!same(this.byId.get(run.id), run)) {
        this.byId.set(run.id, run);
        changed = true;
      }
      this.cursor.saw(run.updatedAt);
    }
    if (await this.renewLeases()) changed = true;
    if (changed) {
      this.sorted = [...this.byId.values()].sort((a, b) => b.id - a.id);
      this.version++;
    }
    return changed;
  }

  /**
   * A driver renews its lease without touching the run, so a run whose lease looks expired
   * here is read again before it is shown as interrupted — once: a new owner touches the run.
   */
  private async renewLeases(): Promise<boolean> {
    let changed = false;
    for (const run of this.byId.values()) {
      if (
        run.status !== 'running' ||
        !run.owner ||
        this.gone.get(run.id) === run.owner.leaseUntil ||
        liveOwner(this.ops.liveness, run)
      )
        continue;
      const fresh = await this.ops.run(run.id);
      if (fresh && fresh.owner?.leaseUntil !== run.owner.leaseUntil) {
        this.byId.set(run.id, { ...run, ...fresh });
        changed = true;
      } else this.gone.set(run.id, run.owner.leaseUntil);
    }
    return changed;
  }
}

function same(a: RunWithWaiting | undefined, b: RunWithWaiting): boolean {
  return (
    !!a &&
    a.updatedAt === b.updatedAt &&
    a.status === b.status &&
    a.costUsd === b.costUsd &&
    a.owner?.leaseUntil === b.owner?.leaseUntil &&
    a.waiting?.updatedAt === b.waiting?.updatedAt &&
    a.running?.updatedAt === b.running?.updatedAt
  );
}
