/** How `shop watch` retries a run whose resume keeps failing: 2 s, 4 s, 8 s … up to a minute, 5 tries. */
const RESUME_BACKOFF = { firstMs: 2000, maxMs: 60_000, attempts: 5 };

/**
 * Consecutive resume failures per run, and when the run may be tried again. In memory: a
 * restarted worker starts counting afresh, which costs at most a few more tries.
 */
export class ResumeBackoff {
  private readonly runs = new Map<number, { failures: number; retryAt: number }>();

  constructor(private readonly policy = RESUME_BACKOFF) {}

  /** True while the run should be left alone. */
  waiting(runId: number, now: number): boolean {
    const r = this.runs.get(runId);
    return Boolean(r && now < r.retryAt);
  }

  /** One more failure: when to try again, or that this was the last attempt. */
  failed(runId: number, now: number): { failures: number; retryInMs: number; giveUp: boolean } {
    const failures = (this.runs.get(runId)?.failures ?? 0) + 1;
    const retryInMs = Math.min(this.policy.firstMs * 2 ** (failures - 1), this.policy.maxMs);
    this.runs.set(runId, { failures, retryAt: now + retryInMs });
    return { failures, retryInMs, giveUp: failures >= this.policy.attempts };
  }

  /** The run was driven (or ended): its count starts again. */
  succeeded(runId: number): void {
    this.runs.delete(runId);
  }
}
