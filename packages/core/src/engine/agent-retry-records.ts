import { describeTransient } from '../agents/transient.js';
import type { Execution } from '../types.js';
import { nodeRetryTiming, type RetryEvent } from './agent-retry.js';
import type { RetryTiming } from './ports.js';
import type { EnginePorts } from './ports.js';

/** Retries in the store: recorded as they are decided, and picked up by the next driver after a crash. */

export const retryTiming = (ports: EnginePorts): RetryTiming => ports.retryTiming ?? nodeRetryTiming();

/**
 * A retry as the world sees it: the audit trail's `agent_retry` event, a line for whoever
 * prints progress, and the call's activity (shop status, list, the TUI) while it waits.
 */
export function recordRetry(
  ports: EnginePorts,
  token: string,
  runId: number,
  key: string,
  agent: string,
): (e: RetryEvent) => Promise<void> {
  return async (e) => {
    await ports.store.appendEvent(token, runId, {
      type: 'agent_retry',
      key,
      actor: 'shop',
      channel: 'engine',
      data: { ...e },
    });
    ports.notifier.notify({
      type: 'agent_retry',
      key,
      agent,
      error: e.error,
      attempt: e.attempt,
      of: e.of,
      delayMs: e.delay_ms,
    });
    const text = `${describeTransient(e)}: waiting ${Math.ceil(e.delay_ms / 1000)}s to try again (attempt ${e.attempt + 1} of ${e.of} next)`;
    ports.notifier.notify({ type: 'agent_activity', key, agent, text, since: e.retry_at - e.delay_ms });
    // Progress, not state: a refused write (the run was taken over) shows at the call's next write.
    await ports.store.setActivity(token, runId, key, { text }).catch(() => undefined);
  };
}

/**
 * After a driver died: the retry streak its call was in, when the call's last audit entry is
 * a retry — the next try's number, and (when it died during the wait itself: no attempt
 * started since) when that wait ends.
 */
export function pendingRetry(
  events: { key: string | null; type: string; data: Record<string, unknown> | null }[],
  key: string,
  attempts: number,
): { try: number; retryAt: number | null } | null {
  const last = events.findLast((e) => e.key === key);
  if (last?.type !== 'agent_retry' || !last.data) return null;
  const d = last.data as Partial<RetryEvent>;
  if (typeof d.attempt !== 'number' || typeof d.attempts !== 'number') return null;
  return { try: d.attempt + 1, retryAt: d.attempts === attempts && typeof d.retry_at === 'number' ? d.retry_at : null };
}

/**
 * Re-invoking a call whose driver died: when it died during a retry's wait, the rest of that
 * wait (stop and Ctrl-C still end it), and the streak's next try.
 */
export async function interruptedRetry(
  ports: EnginePorts,
  runId: number,
  rec: Execution,
  signal: AbortSignal,
): Promise<{ try: number } | null> {
  const retry =
    rec.status === 'running' ? pendingRetry(await ports.store.listEvents(runId), rec.key, rec.attempts) : null;
  const timing = retryTiming(ports);
  if (retry?.retryAt)
    await timing.sleep(Math.max(0, Math.min(retry.retryAt - ports.clock.now(), timing.capMs)), signal);
  return retry;
}
