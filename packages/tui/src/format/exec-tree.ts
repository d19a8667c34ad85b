import { waitingOnWords } from '@shop/core';
import type { Execution } from '@shop/core';

export interface TreeRow {
  exec: Execution;
  /** 0 for the main thread; each parallel one deeper ("4/2/1" is 1, "4/2/3/1/1" is 2). */
  depth: number;
}

const segments = (key: string) => key.split('/').map(Number);

/** Keys in tree order: 4 < 4/1/1 < 4/1/2 < 4/2/1 < 5 — each branch's calls under its parallel. */
export function compareKeys(a: string, b: string): number {
  const x = segments(a);
  const y = segments(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i] - y[i];
  return x.length - y.length;
}

/** A run's executions as a tree: parallel branches indented under their `parallel`. */
export function executionTree(execs: readonly Execution[]): TreeRow[] {
  return [...execs]
    .sort((a, b) => compareKeys(a.key, b.key))
    .map((exec) => ({ exec, depth: (segments(exec.key).length - 1) / 2 }));
}

/** What a call is: its agent, or the kind of host call (pause, sh, parallel …). */
export function callName(exec: Execution): string {
  if (exec.kind === 'run') return exec.agent ?? 'run';
  if (exec.kind === 'patch') return 'patched';
  return exec.kind;
}

/** The one thing to say about a call in its row. */
export function callSummary(exec: Execution): string {
  if (exec.status === 'waiting_human') return exec.waitingFor ?? '';
  if (exec.status === 'waiting') return waitingOnWords([exec]) ?? '';
  if (exec.status === 'failed') return exec.error ?? 'failed';
  if (exec.status === 'running') return exec.activity ?? (exec.kind === 'sh' ? (exec.prompt ?? '') : '');
  const result = exec.result as Record<string, unknown> | null;
  if (exec.kind === 'run' && result && typeof result === 'object') {
    const said = result.summary ?? result.reason;
    return `${String(result.status ?? '')}${said ? `: ${String(said)}` : ''}`;
  }
  if (exec.kind === 'pause' && result && typeof result === 'object')
    return `${exec.prompt ?? ''} → ${result.continue ? 'continue' : 'stop'}`;
  return exec.kind === 'sh' || exec.kind === 'pause' ? (exec.prompt ?? '') : '';
}
