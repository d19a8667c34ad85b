import { existsSync } from 'node:fs';
import type { Run } from '../types.js';
import { LEFT_SHOWN, type LeftRun } from '../store/worker-store.js';

/** How long a look at a run's files is trusted: a pass a fifth of a second later does not stat again. */
const LOOK_MS = 5_000;

/**
 * Whether this checkout can drive a run: its workflow file and its workspace are here. A worker
 * whose checkout lacks them (another project's checkout, a branch without that workflow, a
 * worktree made on another machine) leaves the run to the workers that have them — it never
 * claims it, so it neither fails the run nor takes it again and again — and says so.
 */
export class CheckoutCheck {
  private readonly looks = new Map<string, { at: number; there: boolean }>();
  /** The runs left now, by id: refreshed at each look, forgotten once not looked at for `forgetMs`. */
  private readonly leftNow = new Map<number, LeftRun & { at: number }>();

  constructor(
    private readonly now: () => number,
    private readonly shown: (path: string) => string,
    private readonly forgetMs: number,
  ) {}

  /** Why this checkout cannot drive the run, or null when it can. `onLeft` hears of a run newly left. */
  why(run: Pick<Run, 'id' | 'spec' | 'workflowPath' | 'workspace'>, onLeft?: (left: LeftRun) => void): string | null {
    const reason = !this.there(run.workflowPath)
      ? `this checkout has no ${this.shown(run.workflowPath)}`
      : !this.there(run.workspace)
        ? `its workspace ${this.shown(run.workspace)} is not in this checkout`
        : null;
    if (reason === null) {
      this.leftNow.delete(run.id);
      return null;
    }
    const before = this.leftNow.get(run.id);
    const left = { runId: run.id, spec: run.spec, reason };
    this.leftNow.set(run.id, { ...left, at: this.now() });
    if (!before || before.reason !== reason) onLeft?.(left);
    return reason;
  }

  /** The runs this worker leaves now (newest first, bounded), for its heartbeat. */
  left(): LeftRun[] {
    const now = this.now();
    for (const [id, l] of this.leftNow) if (now - l.at > this.forgetMs) this.leftNow.delete(id);
    return [...this.leftNow.values()]
      .sort((a, b) => b.runId - a.runId)
      .slice(0, LEFT_SHOWN)
      .map(({ runId, spec, reason }) => ({ runId, spec, reason }));
  }

  /** A run that ended or another worker took: no longer this worker's to leave. */
  forget(runId: number): void {
    this.leftNow.delete(runId);
  }

  private there(path: string): boolean {
    const now = this.now();
    const look = this.looks.get(path);
    if (look && now - look.at < LOOK_MS) return look.there;
    const there = existsSync(path);
    if (this.looks.size > 1024) this.looks.clear();
    this.looks.set(path, { at: now, there });
    return there;
  }
}
