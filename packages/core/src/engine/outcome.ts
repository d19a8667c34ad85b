import type { Execution } from '../types.js';

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
