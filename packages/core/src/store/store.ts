import type { Decision } from '../decisions/decision-spec.js';
import type { AccessStore } from './access-store.js';
import type {
  AgentMetrics,
  Answer,
  CallKind,
  Execution,
  ReplayRecord,
  Run,
  RunEvent,
  RunHold,
  RunOwner,
  RunRules,
  RunStatus,
  Timer,
  TimerData,
  TimerKind,
  Trigger,
  WaitKind,
} from '../types.js';
import type { ClaimStore } from './claim-store.js';
import type { SentEventStore } from './sent-event-store.js';
import type { SessionStore } from './session-store.js';
import type { WorkerStore } from './worker-store.js';
import type { QueueStore } from './queue-store.js';
import type { MetricCounts } from './metric-counts.js';
import type { HookStore } from './hook-store.js';
import type { ScheduleStore } from './schedule-store.js';
import type { EventInput, OwnerClaim } from './store-inputs.js';

export type { EventInput, OwnerClaim };

/**
 * The store port: domain operations, each atomic (one transaction inside) and each
 * returning a Promise so an asynchronous adapter (PostgreSQL) can replace SQLite later.
 *
 * A driver's writes take its owner token and fail with LostOwnershipError when another
 * driver holds the run (fencing). Operations without a token are the ones any process may
 * do: create a run, record an answer or a stop, append to the audit trail.
 */
export interface Store
  extends AccessStore, ClaimStore, SessionStore, WorkerStore, SentEventStore, QueueStore, HookStore, ScheduleStore {
  /**
   * The store's clock (ms): leases and claims are judged by it, inside the store, so drivers
   * on machines whose clocks disagree still agree on who owns a run.
   */
  now(): number;
  createRun(input: NewRun): Promise<Run>;
  getRun(id: number): Promise<Run | null>;
  /** Runs matching the filter, newest first (at most `limit` of them). */
  listRuns(filter?: RunFilter): Promise<RunWithWaiting[]>;
  /** How many runs match the filter (its `limit` aside). */
  countRuns(filter?: RunFilter): Promise<number>;
  /** What a metrics scrape reads (metrics/): counts by bounded labels, in one look. */
  metricCounts(): Promise<MetricCounts>;
  /**
   * Runs not ended (running or waiting), oldest first. `awake`: without the runs asleep
   * (`waiting` on the world) — a worker's pass reads those only when their time has come.
   */
  listOpenRuns(opts?: { awake?: boolean }): Promise<Run[]>;
  /** Runs with an answer recorded for a call's current ask that the call has not taken in yet. */
  answeredRuns(): Promise<number[]>;
  /** Open runs with a call waiting on a run that has ended (a child's end wakes its parent). */
  childEndedRuns(): Promise<number[]>;
  /** The runs a run's calls started (call_workflow, start_workflow), oldest first. */
  listChildren(runId: number): Promise<Run[]>;
  /**
   * Runs whose look changed in (since, until] by time alone, with when: a driver's lease ran
   * out (the run shows interrupted), a claim aged out. Nothing is written then, so a live view
   * reading only changed rows would miss them.
   */
  lapsedSince(since: number, until: number): Promise<{ runId: number; at: number }[]>;
  /** Every call waiting for a person, across runs, oldest ask first. */
  listWaiting(): Promise<{ run: Run; execution: Execution }[]>;
  /** Every execution of a run in call order; with `last`, only the last that many. */
  loadExecutions(runId: number, last?: number): Promise<Execution[]>;
  /** The run's calls still running or waiting for a person, in call order (read by an index, not the whole log). */
  openExecutions(runId: number): Promise<Execution[]>;
  /** How many calls the run made, what they cost, and the agent of the latest call that had one. */
  executionTotals(runId: number): Promise<{ calls: number; cost: number; agent: string | null }>;
  /** The run's log as replay reads it, in call order — one lean query. */
  loadReplayLog(runId: number): Promise<ReplayRecord[]>;
  getExecution(runId: number, key: string): Promise<Execution | null>;
  /** The run's audit trail in order (after event `afterId`, when given). */
  listEvents(runId: number, afterId?: number): Promise<RunEvent[]>;
  /** The run's latest `count` events, in order (a page of a long trail, read without the rest). */
  lastEvents(runId: number, count: number): Promise<RunEvent[]>;
  /** How many log lines each thread ("" = main) has recorded, so replay does not repeat them. */
  countLogs(runId: number): Promise<Map<string, number>>;

  /**
   * Takes the run for a driver, leased for `leaseMs` from the store's now(), when it has no
   * owner, its lease has run out by the store's clock, or its owner is `expectedToken` (one
   * the caller saw die on its own host). Null when a live owner holds it.
   */
  claimRun(runId: number, owner: OwnerClaim, leaseMs: number, expectedToken: string | null): Promise<Run | null>;
  /** Extends the lease to the store's now() + `leaseMs`; false when the token no longer owns the run. */
  renewLease(runId: number, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Gives the run up. With `ifIdle`, only when no recorded answer waits to be taken in —
   * checked in the same transaction, so an answer recorded just before is never stranded.
   */
  releaseRun(runId: number, token: string, opts: { ifIdle: boolean }): Promise<'released' | 'answered' | 'lost'>;
  /** `shop stop`: records the request for the owner; ConflictError when the run has ended. */
  /**
   * Records `shop stop` for the run and, in the same transaction, for each of its open
   * children (and theirs): each stop in that run's trail, the child's reason naming the parent.
   */
  requestStop(runId: number, reason: string, by: string): Promise<Run>;

  setWorkspace(token: string, runId: number, workspace: string, branch: string | null): Promise<void>;
  startExecution(token: string, input: NewExecution): Promise<Execution>;
  /**
   * Running again (a crash, feedback, a retry); an agent's call reports to `signalPath` this
   * time, and the driver's agent step takes the session's hold. SessionHeldError while a
   * person's shop continue holds it (unless that hold is `staleHold`, judged dead by the
   * caller: then it is cleared).
   */
  restartExecution(
    token: string,
    runId: number,
    key: string,
    opts?: { signalPath?: string; staleHold?: string | null },
  ): Promise<void>;
  /**
   * A person's `shop continue` takes the waiting call's session, in one transaction: only for
   * the ask `expect.ask`, not answered yet, not held by anyone else (SessionHeldError, or
   * ConflictError when answered or no longer waiting).
   */
  holdSession(
    runId: number,
    key: string,
    hold: ContinueHold,
    expect: { ask: number; staleHold: string | null },
  ): Promise<void>;
  /** Lets go of the session `token` holds (nothing when it no longer does). */
  releaseSession(runId: number, key: string, token: string): Promise<void>;
  /** The agent process started on a call (its pid), with `started` — its audit event — in the same transaction. */
  setExecutionPid(
    token: string,
    runId: number,
    key: string,
    pid: number | null,
    pidStart: string | null,
    started?: EventInput,
  ): Promise<void>;
  /** The session an agent CLI chose itself (Codex names its thread), recorded once its events name it: resumes use it. */
  setSessionId(token: string, runId: number, key: string, sessionId: string): Promise<void>;
  /** An agent's progress while it works: its latest activity, and cost and turns when known. */
  setActivity(token: string, runId: number, key: string, activity: Activity): Promise<void>;
  /** Completes the call and gives it the next delivery number, which it returns. */
  completeExecution(
    token: string,
    runId: number,
    key: string,
    result: unknown,
    metrics?: AgentMetrics,
  ): Promise<number>;
  /** The execution waits for a person (its ask count goes up); the run takes `runStatus`. */
  markWaiting(token: string, runId: number, key: string, ask: WaitingAsk, runStatus: ActiveStatus): Promise<Execution>;
  /**
   * The call waits on the world (a timer; an event, another run), in one transaction: its
   * status `waiting` with what it waits on, a `wake` timer at its due time (when it has one),
   * the run's status and the wait's event.
   */
  waitOn(token: string, runId: number, key: string, wait: WorldWait, runStatus: ActiveStatus): Promise<Execution>;
  /**
   * Ends a call's wait on the world, exactly once: its pending `wake` timers fired, the call
   * completed with `result` and handed over (its delivery number returned), and `event` (timer_fired …),
   * in one transaction. Null when the call no longer waits (another driver or an earlier pass ended it).
   */
  endWait(token: string, runId: number, key: string, result: unknown, event: EventInput): Promise<number | null>;
  /** Closes a structural call (a parallel) as completed, or failed with `error`; nothing is delivered. */
  closeExecution(token: string, runId: number, key: string, error: string | null): Promise<void>;
  /** Marks open calls failed without ending the run (a cancelled parallel branch). */
  cancelExecutions(token: string, runId: number, keys: string[], reason: string): Promise<void>;
  /**
   * Ends the run (completed, stuck, failed) unless it has already ended; its open calls —
   * running or waiting for a person — fail with the reason. `failedKey` fails that call with
   * the reason too.
   */
  finishRun(token: string, runId: number, end: RunEnd): Promise<boolean>;
  setRunStatus(token: string, runId: number, status: ActiveStatus, event: EventInput): Promise<void>;
  /**
   * The run's rules change (recorded at their first use, re-recorded when a person accepts the
   * files' new ones) and/or its hold ends (`clearHeld`), with its event, in one transaction.
   */
  setRunRules(token: string, runId: number, update: RulesUpdate): Promise<void>;
  /** Audit-trail entries; a driver's own (log lines) pass its token. */
  appendEvent(token: string | null, runId: number, event: EventInput): Promise<void>;

  /**
   * First answer wins: ConflictError naming the first responder when this ask was answered,
   * or when the call no longer waits on it; SessionHeldError while a person is in the call's
   * session (shop continue), unless that hold is `staleHold` (its process gone: cleared). Returns the run's owner as it stood when the
   * answer was committed: a live owner takes the answer in itself.
   */
  recordAnswer(
    answer: Omit<Answer, 'answeredAt'>,
    staleHold?: string | null,
  ): Promise<Answer & { owner: RunOwner | null }>;
  getAnswer(runId: number, key: string, ask: number): Promise<Answer | null>;

  /** Timers not fired yet and due by `now`, oldest first (of the given runs, or all). */
  dueTimers(now: number, runIds?: number[]): Promise<Timer[]>;
  /** The earliest time a timer of these runs (or of any run not ended) is due, if one is pending. */
  nextTimer(runIds?: number[]): Promise<number | null>;
  /**
   * Fires a timer and what it does, in one transaction: its event, and the run's end, an
   * answer (by system:timeout) or the next timer. A timer whose ask was answered meanwhile is
   * only marked fired (void). Returns whether it took effect.
   */
  fireTimer(token: string, timer: Timer, effect: TimerEffect): Promise<boolean>;
  /** What the run's calls have cost so far (USD). */
  runCost(runId: number): Promise<number>;
  /**
   * shop prune: deletes an ended run and all its rows in one transaction — only when it has
   * ended and no live driver holds it (says which, otherwise). Run ids are never reused.
   */
  deleteRun(runId: number): Promise<DeleteRunOutcome>;
  /** Every answer of a run, oldest first. */
  listAnswers(runId: number): Promise<Answer[]>;
  close(): Promise<void>;
}

/** A person's `shop continue` holding a call's session: its own token and process. */
export interface ContinueHold {
  token: string;
  by: string;
  host: string;
  pid: number;
  pidStart: string | null;
}

export type ActiveStatus = 'running' | 'waiting' | 'waiting_human';

export type DeleteRunOutcome = 'deleted' | 'missing' | 'not_ended' | 'owned';

export interface NewRun {
  spec: string;
  workflowPath: string;
  workflowHash: string | null;
  prompt: string;
  workspace: string;
  branch: string | null;
  seed: number;
  /** shop run owns its new run from the start, leased for `leaseMs` from the store's now(). */
  owner: OwnerClaim;
  leaseMs: number;
  actor: string;
  /** The rules it obeys, fixed as it starts (its workflow's config{} follows at its first load). */
  rules?: RunRules | null;
  /** Who or what started it (default: the actor on the CLI, or the parent run for a child). */
  trigger?: Trigger;
}

export interface RulesUpdate {
  /** The rules in force from now on (absent: unchanged). */
  rules?: RunRules;
  /** The hold ends: its files are back as they were, or a person accepted them. */
  clearHeld?: boolean;
  /** Their audit events, in the same transaction. */
  events?: EventInput[];
}

export interface RunFilter {
  /** Only runs not ended (running or waiting). */
  active?: boolean;
  status?: RunStatus;
  /** Only runs held (a rule file changed during one of their steps). */
  held?: boolean;
  /** Only runs changed after this time (ms): a reader that looked before reads what changed. */
  changedSince?: number;
  /** At most this many (the newest); 0 or absent: all. */
  limit?: number;
}

/** A run with the call it waits on, if any, what its agent is doing now, and its total cost. */
export interface RunWithWaiting extends Run {
  waiting: Execution | null;
  /** Its calls waiting on the world (time, events, other runs), oldest first. */
  waitsOn: Execution[];
  /** The latest activity of a call running now (the newest one when several do). */
  running: Execution | null;
  costUsd: number;
}

/** What an agent is doing, as its stream of events tells. */
export interface Activity {
  text: string;
  costUsd?: number | null;
  numTurns?: number | null;
  durationMs?: number | null;
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
  /** Recorded already waiting for a person (a pause): one transaction, never half a pause. */
  waiting?: WaitingAsk & { runStatus: ActiveStatus };
  /** Recorded already waiting on the world (a sleep): one transaction, its wake timer with it. */
  waitOn?: WorldWait & { runStatus: ActiveStatus };
  /**
   * The call starts a child run (call_workflow, start_workflow): the child's row is made in the
   * same transaction as the call's, its id put in the request as `run_id` (and, waiting on a
   * run, in the wait). One child per (parent, call key), ever: the store's unique index says so.
   */
  child?: NewRun;
}

export interface WaitingAsk {
  waitingFor: string;
  awaiting: string | null;
  metrics?: AgentMetrics;
  /** Its timers, recorded with the ask in the same transaction. */
  timers?: NewTimer[];
  /** Seconds a claim on it lasts (config claim_timeout); absent: the default. */
  claimTimeout?: number;
  /** The decisions it asks for, when not the one its kind implies (an agent's AskUserQuestion). */
  decisions?: Decision[];
}

/** What a call waits on when no person is asked. */
export interface WorldWait {
  kind: Exclude<WaitKind, 'person'>;
  /** When it is due (the store's clock), or null: no due time (an event awaited for ever). */
  until: number | null;
  /** The run it waits on (kind `run`); a child started in the same transaction when absent. */
  runId?: number;
  /** The wait's audit event (wait_started, with what it waits on). */
  event: EventInput;
}

export interface NewTimer {
  kind: TimerKind;
  dueAt: number;
  data: TimerData;
}

export interface TimerEffect {
  event: EventInput;
  end?: RunEnd;
  answer?: Omit<Answer, 'answeredAt'>;
  next?: NewTimer;
}

export interface RunEnd {
  status: 'completed' | 'stuck' | 'failed';
  reason?: string;
  result?: unknown;
  failedKey?: string;
  metrics?: AgentMetrics;
  event: EventInput;
  /**
   * A rule file changed while the step `held.key` ran: the run is held (a files_changed event
   * before `event`), and that step stays running, its report on disk, to be completed by a resume.
   */
  held?: RunHold;
}
