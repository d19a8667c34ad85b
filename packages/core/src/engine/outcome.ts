import type { Execution, Run } from '../types.js';

/** Where driving a run stopped. */
export type DriveOutcome =
  | { status: 'completed'; result: unknown }
  | { status: 'waiting_human'; execution: Execution }
  | { status: 'stuck'; reason: string }
  | { status: 'failed'; reason: string; exitCode: number }
  | { status: 'interrupted' };

/** A host call's effect: a value for Lua, a suspension, or the end of the run. */
export type CallResult =
  | { kind: 'value'; value: unknown }
  | { kind: 'suspend'; execution: Execution }
  | { kind: 'end'; outcome: DriveOutcome };

export const value = (v: unknown): CallResult => ({ kind: 'value', value: v });

/** The outcome an already-ended run stands at. */
export function ended(run: Run): DriveOutcome {
  if (run.status === 'completed') return { status: 'completed', result: run.result };
  if (run.status === 'stuck') return { status: 'stuck', reason: run.reason ?? 'stuck' };
  return { status: 'failed', reason: run.reason ?? 'failed', exitCode: 1 };
}
