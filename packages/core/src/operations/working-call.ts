import type { Execution } from '../types.js';

/**
 * A call doing work now: a running agent step or shell command (a parallel() only waits for
 * its branches). Takes a call as the store keeps it or as --json shows it.
 */
export function isAtWork(e: { status: string; kind: string }): boolean {
  return e.status === 'running' && (e.kind === 'run' || e.kind === 'sh');
}

/**
 * The call at work now among a run's calls: of those at work, the one heard from last (latest
 * activity, else attempt, else start) — the rule the store's run list applies in SQL
 * (run-list-query.ts), so list, status and the TUI name the same call.
 */
export function workingCall(executions: Execution[]): Execution | null {
  const at = (e: Execution) => e.activityAt ?? e.attemptAt ?? e.startedAt ?? 0;
  let found: Execution | null = null;
  for (const e of executions) {
    if (!isAtWork(e)) continue;
    if (!found || at(e) >= at(found)) found = e;
  }
  return found;
}
