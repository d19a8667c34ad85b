import type {
  AgentMetrics, Answer, CallKind, Channel, Execution, ReplayRecord, Run, RunEvent, RunStatus,
} from '../types.js';

/**
 * The store port: domain operations, each atomic (one transaction inside) and each
 * returning a Promise so an asynchronous adapter (PostgreSQL) can replace SQLite later.
 */
export interface Store {
  createRun(input: NewRun): Promise<Run>;
  getRun(id: number): Promise<Run | null>;
  /** Moves a new run into its worktree. */
  setWorkspace(runId: number, workspace: string, branch: string | null): Promise<void>;
  listRuns(filter?: RunFilter): Promise<RunWithWaiting[]>;
  /** Every call waiting for a person, across runs, oldest ask first. */
  listWaiting(): Promise<{ run: Run; execution: Execution }[]>;
  /** Every execution of a run, in call order. */
  loadExecutions(runId: number): Promise<Execution[]>;
  /** The run's log as replay reads it, in call order — one lean query. */
  loadReplayLog(runId: number): Promise<ReplayRecord[]>;
  getExecution(runId: number, key: string): Promise<Execution | null>;
  listEvents(runId: number): Promise<RunEvent[]>;
  countEvents(runId: number, type: string): Promise<number>;

  /** Take the run for this process; ConflictError when another live process holds it. */
  acquireLease(runId: number, pid: number, until: number, isAlive: (pid: number) => boolean): Promise<void>;
  renewLease(runId: number, pid: number, until: number): Promise<void>;
  releaseLease(runId: number, pid: number): Promise<void>;

  startExecution(input: NewExecution): Promise<Execution>;
  /** A re-invocation of a running or failed execution (same session). */
  restartExecution(runId: number, key: string): Promise<void>;
  setExecutionPid(runId: number, key: string, pid: number | null): Promise<void>;
  completeExecution(runId: number, key: string, result: unknown, metrics?: AgentMetrics): Promise<void>;
  /** Fails the execution and the run together. */
  failExecution(runId: number, key: string, error: string, metrics?: AgentMetrics): Promise<void>;
  /** Execution and run both become waiting_human; the execution's ask count goes up by one. */
  markWaiting(runId: number, key: string, waitingFor: string, awaiting: string | null, metrics?: AgentMetrics): Promise<void>;
  /**
   * First answer wins: ConflictError naming the first responder when this ask was answered,
   * or when the call no longer waits on it (the agent resolved it, or the run moved on).
   */
  recordAnswer(answer: Omit<Answer, 'answeredAt'>): Promise<Answer>;
  getAnswer(runId: number, key: string, ask: number): Promise<Answer | null>;
  /** Every answer of a run, oldest first. */
  listAnswers(runId: number): Promise<Answer[]>;

  setRunStatus(runId: number, status: 'running' | 'waiting_human', event: EventInput): Promise<void>;
  /** Ends a run (completed, stuck, failed) unless it has already ended. Returns false if it had. */
  finishRun(runId: number, status: 'completed' | 'stuck' | 'failed', detail: { reason?: string; result?: unknown }, event: EventInput): Promise<boolean>;
  appendEvent(runId: number, event: EventInput): Promise<void>;
  close(): void;
}

export interface NewRun {
  spec: string;
  workflowPath: string;
  prompt: string;
  workspace: string;
  branch: string | null;
  seed: number;
  ownerPid: number;
  leaseUntil: number;
  actor: string;
}

export interface RunFilter {
  active?: boolean;
  status?: RunStatus;
}

/** A run with the call it waits on, if any, and its total cost. */
export interface RunWithWaiting extends Run {
  waiting: Execution | null;
  costUsd: number;
}

export interface NewExecution {
  runId: number;
  key: string;
  kind: CallKind;
  agent: string | null;
  fingerprint: string;
  sessionId: string | null;
  cwd: string | null;
  prompt: string | null;
  request: unknown;
  signalPath: string | null;
}

export interface EventInput {
  type: string;
  key?: string | null;
  actor: string;
  channel: Channel;
  data?: Record<string, unknown> | null;
}
