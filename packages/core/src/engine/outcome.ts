import type { Execution, Run } from '../types.js';

/** Where driving a run stopped. */
export type DriveOutcome =
  /**
   * worktreeKept: a --worktree run's worktree that stayed when it ended, and why ("<path> holds work not committed").
   * parentId (on an end): the run whose call started this one (call_workflow): its end wakes that run.
   */
  | { status: 'completed'; result: unknown; worktreeKept?: string; parentId?: number }
  /** Nothing can go on until a person answers: every waiting call, oldest first. */
  | { status: 'waiting_human'; execution: Execution; waiting: Execution[] }
  /**
   * Nothing can go on until time passes (or an event comes, another run ends): no person is asked
   * of it. Its waits, oldest first; `asks`: the open asks of the runs it waits on (its children, theirs …).
   */
  | { status: 'waiting'; waits: Execution[]; asks?: Execution[] }
  | { status: 'stuck'; reason: string; worktreeKept?: string; parentId?: number }
  | { status: 'failed'; reason: string; exitCode: number; nonDeterminism?: NonDeterminism; parentId?: number }
  /** Ctrl-C or SIGTERM: the run is left for `shop resume`. */
  | { status: 'interrupted' }
  /** Another driver took the run over while this one was not running; nothing more was written. */
  | { status: 'lost' }
  /** A dry replay (shop replay) reached the end of the log: the workflow still fits the run. */
  | { status: 'replayed' };

/** Where a replayed log and the workflow part ways (a dry replay says so instead of failing the run). */
export interface NonDeterminism {
  key: string;
  recorded: string;
  attempted: string;
}

/** What a live call came to: a value handed to Lua in delivery order, or a wait for a person. */
export type Settled =
  | { kind: 'value'; value: unknown; delivered: number }
  /** `fresh`: the ask (or wait) was made just now (not a recorded one picked up on replay). */
  | { kind: 'waiting'; execution: Execution; fresh: boolean };

/** A live call stopped because the driver aborted it (stop, cancel, Ctrl-C, lost lease). */
export class Aborted extends Error {
  constructor() {
    super('aborted');
  }
}

/** The outcome an already-ended run stands at. */
export function ended(run: Run): DriveOutcome {
  if (run.status === 'completed') return { status: 'completed', result: run.result };
  if (run.status === 'stuck') return { status: 'stuck', reason: run.reason ?? 'stuck' };
  return { status: 'failed', reason: run.reason ?? 'failed', exitCode: 1 };
}
