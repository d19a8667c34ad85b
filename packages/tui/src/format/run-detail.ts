import { localTime, waitingOnWords, workingCall } from '@shop/core';
import type { Execution, RunEvent, RunView } from '@shop/core';
import { askerName } from './run-row.js';
import { callName } from './exec-tree.js';
import { age, duration, oneLine, resultLine, usd } from './time.js';

/** The status in words: "waiting for a person · 2 asks", "interrupted: its driver is gone". */
export function statusText(view: RunView, status: string): string {
  if (status === 'waiting_human')
    return `waiting for a person${view.waitingAll.length > 1 ? ` · ${view.waitingAll.length} asks` : ''}`;
  if (status === 'waiting') {
    const on = waitingOnWords(view.executions.filter((e) => e.status === 'waiting'));
    return `waiting on ${on ?? 'the world'} (no person needed; shop watch resumes it)`;
  }
  if (status === 'interrupted') return `interrupted: its driver is gone (shop resume ${view.run.id} takes it over)`;
  if (status === 'running' && view.run.stop)
    return `running · stop requested by ${view.run.stop.by}: ${oneLine(view.run.stop.reason)}`;
  return status;
}

/** Why it stands where it stands: what it waits for, what its agent does, why it ended. */
export function reasonLine(view: RunView, status?: string): { label: string; text: string } | null {
  const { run, waiting } = view;
  if (waiting)
    return {
      label: 'Reason',
      text: `${askerName(waiting)} asks (${waiting.awaiting ?? 'input'}): ${oneLine(waiting.waitingFor)}`,
    };
  const busy = workingCall(view.executions);
  if (run.status === 'running' && busy)
    return {
      label: status === 'interrupted' ? 'Last activity' : 'Activity',
      text: `${callName(busy)}: ${oneLine(busy.activity ?? busy.prompt) || 'working…'}`,
    };
  if (run.reason) return { label: 'Reason', text: oneLine(run.reason) };
  if (run.status === 'completed' && run.result != null) return { label: 'Result', text: resultLine(run.result) };
  return null;
}

/** "Waiting: 10m 3s · Cost: $0.40 · Age: 1h · Workspace: /w". */
export function factsLine(view: RunView, now: number): string {
  const oldest = view.waitingAll.reduce<number | null>(
    (t, e) => (t === null || e.updatedAt < t ? e.updatedAt : t),
    null,
  );
  return [
    oldest !== null ? `Waiting: ${duration(now - oldest)}` : '',
    `Cost: ${usd(view.cost)}`,
    `Age: ${age(now - view.run.createdAt)}`,
    `Workspace: ${view.run.workspace}`,
    // Runs calling runs: the link to its parent (a child's ask is answered by its own handle).
    view.run.parentId !== null ? `Child of run ${view.run.parentId}` : '',
  ]
    .filter(Boolean)
    .join(' · ');
}

/**
 * How long a call took, or has been running or waiting. A call left open by a driver that is
 * gone (`goneSince`) is not running: it says since when (clock time, no timer that grows).
 */
export function callTime(exec: Execution, now: number, goneSince: number | null = null): string {
  if (exec.status === 'waiting_human') return `waiting (${age(now - exec.updatedAt)})`;
  if (exec.status === 'waiting')
    return exec.waitUntil !== null && exec.waitUntil > now ? `due in ${duration(exec.waitUntil - now)}` : 'due';
  if (exec.status === 'running' && goneSince !== null) return `gone ${localTime(goneSince).slice(11, 19)}`;
  if (exec.status === 'running') return `running ${duration(now - (exec.attemptAt ?? exec.startedAt))}`;
  return duration((exec.finishedAt ?? exec.updatedAt) - exec.startedAt);
}

/** One audit-trail entry: "3m ago  human_answered [2] by ann (tui): approved". */
export function eventLine(e: RunEvent, now: number): string {
  const d = e.data ?? {};
  const said = ['verdict', 'status', 'message', 'waiting_for', 'reason', 'error', 'summary']
    .map((k) => d[k])
    .filter((v) => typeof v === 'string' && v)
    .map((v) => oneLine(v as string));
  return `${age(now - e.at).padStart(3)} ago  ${e.type}${e.key ? ` [${e.key}]` : ''} by ${e.actor} (${e.channel})${said.length ? `: ${said.join(' — ')}` : ''}`;
}
