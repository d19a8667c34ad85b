import { waitingOnWords } from '@shop/core';
import type { Execution, RunWithWaiting } from '@shop/core';
import { callName } from './exec-tree.js';
import { oneLine, resultLine } from './time.js';

/** Who a waiting call waits for, as the list and the inbox name it. */
export const askerName = (exec: Execution): string => (exec.kind === 'pause' ? 'pause' : callName(exec));

/** The run's agent now and what it does or waits for: the list's AGENT and WHAT columns. */
export function runActivity(run: RunWithWaiting, status: string): { agent: string; what: string } {
  if (run.waiting) return { agent: askerName(run.waiting), what: oneLine(run.waiting.waitingFor) };
  if (status === 'waiting' && run.waitsOn.length)
    return { agent: callName(run.waitsOn[0]!), what: waitingOnWords(run.waitsOn) ?? '' };
  if (status === 'interrupted')
    return {
      agent: run.running ? callName(run.running) : '-',
      what: `its driver is gone; resume with: shop resume ${run.id}`,
    };
  if (run.running)
    return {
      agent: callName(run.running),
      what: oneLine(run.running.activity ?? (run.running.kind === 'sh' ? run.running.prompt : 'working…')),
    };
  if (run.stop && status === 'running') return { agent: '-', what: `stopping: ${oneLine(run.stop.reason)}` };
  return {
    agent: '-',
    what: oneLine(run.reason) || (status === 'completed' && run.result != null ? resultLine(run.result) : ''),
  };
}

/** Whether a run matches the filter typed after `/`: id, spec, status, agent, what it does, prompt. */
export function matches(run: RunWithWaiting, status: string, filter: string): boolean {
  const q = filter.trim().toLowerCase();
  if (!q) return true;
  const { agent, what } = runActivity(run, status);
  return [String(run.id), run.spec, status, status === 'waiting_human' ? 'waiting' : '', agent, what, run.prompt].some(
    (field) => field.toLowerCase().includes(q),
  );
}
