import { pauseDeadline, type PauseSpec } from '../decisions/decision-spec.js';
import { notifyTargets, type WorkflowConfig } from '../lua/workflow-config.js';
import type { NewTimer } from '../store/store.js';

/**
 * The timers an ask gets when it opens, from config{} and a pause's own deadline: its
 * timeout (on_timeout), a reminder to the notify targets, and the escalation to escalate_to
 * (then one reminder to them), as in the escalation chain of the reference design.
 */
export function askTimers(config: WorkflowConfig, ask: { kind: string; request: unknown }, now: number): NewTimer[] {
  const timers: NewTimer[] = [];
  const spec = ask.kind === 'pause' ? (ask.request as PauseSpec | null) : null;
  const deadline = pauseDeadline(spec, now) ?? (config.human_timeout ? now + config.human_timeout * 1000 : null);
  if (deadline !== null) {
    const onTimeout = spec?.on_timeout ?? config.on_timeout ?? 'stuck';
    timers.push({
      kind: 'timeout',
      dueAt: deadline,
      data: {
        on_timeout: onTimeout,
        targets: notifyTargets(config),
        after_seconds: Math.round((deadline - now) / 1000),
      },
    });
  }
  if (config.remind_after) {
    timers.push({
      kind: 'remind',
      dueAt: now + config.remind_after * 1000,
      data: { targets: notifyTargets(config), after_seconds: config.remind_after },
    });
  }
  if (config.escalate_after && config.escalate_to?.length) {
    const at = now + config.escalate_after * 1000;
    timers.push({
      kind: 'escalate',
      dueAt: at,
      data: { targets: config.escalate_to, after_seconds: config.escalate_after },
    });
    if (config.remind_after) {
      const again = config.escalate_after + config.remind_after;
      timers.push({
        kind: 'remind',
        dueAt: now + again * 1000,
        data: { targets: config.escalate_to, after_seconds: again },
      });
    }
  }
  return timers;
}

/** "24h", "90m", "45s" — how long an ask waited, for people. */
export function duration(seconds: number): string {
  if (seconds % 3600 === 0 && seconds >= 3600) return `${seconds / 3600}h`;
  if (seconds % 60 === 0 && seconds >= 60) return `${seconds / 60}m`;
  return `${seconds}s`;
}
