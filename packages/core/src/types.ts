import type { Decision } from './decisions/decision-spec.js';
/** Domain records shared by the store, the engine and the CLI. */
/**
 * `queued`: recorded, not taken by a worker yet (shop run --detach, the API, a schedule, a hook);
 * `waiting`: nothing can go on and no person is asked (it waits on time, an event or another run); `waiting_human`: an ask is open.
 */
export type RunStatus = 'queued' | 'running' | 'waiting' | 'waiting_human' | 'completed' | 'stuck' | 'failed';

/** Who or what started a run (context().trigger): `name` the schedule, hook or parent run; `data` what it brought (a payload). */
export interface Trigger {
  kind: 'cli' | 'web' | 'api' | 'schedule' | 'webhook' | 'parent';
  name: string | null;
  by: string | null;
  data: unknown;
}
/** `waiting`: the call waits on the world (its wait kind says what); `waiting_human`: on a person's answer. */
export type ExecutionStatus = 'running' | 'waiting' | 'waiting_human' | 'completed' | 'failed';
export type CallKind =
  | 'run'
  | 'pause'
  | 'sh'
  | 'now'
  | 'patch'
  | 'parallel'
  | 'sleep'
  | 'wait_event'
  | 'event_url'
  | 'workflow'
  | 'start_workflow'
  | 'wait_run';
/** What a suspended call waits on: a person (an ask), a timer, an event, another run. */
export type WaitKind = 'person' | 'timer' | 'event' | 'run';

export const endedStatuses: readonly RunStatus[] = ['completed', 'stuck', 'failed'];

/** Completed, stuck or failed: nothing drives the run any more (a failed one may be retried). */
export const hasEnded = (run: { status: RunStatus }): boolean => endedStatuses.includes(run.status);

export interface Run {
  id: number;
  spec: string;
  workflowPath: string;
  prompt: string;
  status: RunStatus;
  workspace: string;
  branch: string | null;
  reason: string | null;
  result: unknown;
  seed: number;
  /** Hash of the workflow file the run started with (null for runs recorded before v2). */
  workflowHash: string | null;
  owner: RunOwner | null;
  /** `shop stop` recorded, for the owner to carry out. */
  stop: { reason: string; by: string; at: number } | null;
  /** The rules it obeys, fixed when it started (null for runs recorded before schema 11 until they are driven again). */
  rules: RunRules | null;
  /** Set when a rule file changed while one of its own steps ran: it resumes only as shop resume says. */
  held: RunHold | null;
  /** The run whose call (call_workflow, start_workflow) started this one, and that call's key; null for a run started by a person. */
  parentId: number | null;
  parentKey: string | null;
  /** In the queue (and after): higher is taken first; runs of one key count apart against its workflow's concurrency. */
  priority: number;
  queueKey: string | null;
  /** Its workflow's config{ concurrency } when it was queued: how many runs of it (of its key) are driven at once. */
  concurrency: number | null;
  /** Who or what started it; null for runs recorded before schema 14. */
  trigger: Trigger | null;
  createdAt: number;
  updatedAt: number;
  endedAt: number | null;
}

/**
 * The rules a run obeys, recorded when it starts: its agents' CLIs, models, permissions and
 * gates, and its workflow's config{}. Later edits of those files do not change them; a person
 * takes new ones with `shop resume <id> --accept-changes`.
 */
export interface RunRules {
  /** Each agent's rules by name, as its file said when the run started (or at the agent's first use). */
  agents: Record<string, AgentRules>;
  /** What the workflow's config{} set as its file loaded, the first time it did for this run; null until then. */
  config: Record<string, unknown> | null;
  /** The content hash (sha256) of each rule file (the workflow, every agent definition) as the run last saw it between its steps. */
  files: Record<string, string>;
  /** What the files say now that the run does not follow (a person's edit): "agents/coder.md: model", "workflows/x.lua: config.gates". */
  differs: string[];
}

/** An agent definition's rules (front matter keys; its instructions stay the file's). */
export interface AgentRules {
  /** Its definition, relative to the project (agents/<name>.md or .claude/agents/<name>.md). */
  file: string;
  cli: string | null;
  model: string | null;
  permission_mode: string | null;
  allowed_tools: string[];
  command: string[] | null;
  /** As the definition parsed them (null: none). */
  gates: unknown;
}

/** Why a run is held: the files that changed while its step `key` ran, with their hashes before and after (null: absent). */
export interface RunHold {
  key: string;
  /** The step's agent; null for a sh() command. */
  agent: string | null;
  files: { path: string; before: string | null; after: string | null }[];
  /** Found on a resume: the step's driver had stopped (killed, Ctrl-C) before it could look after the step. */
  interrupted?: boolean;
  at: number;
}

export interface Execution {
  runId: number;
  key: string;
  seq: number;
  kind: CallKind;
  agent: string | null;
  fingerprint: string;
  status: ExecutionStatus;
  /** The order in which its result was handed to Lua (replay hands them in the same order). */
  delivered: number | null;
  sessionId: string | null;
  cwd: string | null;
  prompt: string | null;
  request: unknown;
  result: unknown;
  signalPath: string | null;
  waitingFor: string | null;
  awaiting: string | null;
  error: string | null;
  costUsd: number | null;
  /** Tokens the call's agents reported, summed over its invocations (null: its CLI never said). */
  tokens: TokenCounts;
  numTurns: number | null;
  durationMs: number | null;
  pid: number | null;
  pidStart: string | null;
  /** When the current attempt started: elapsed time while it runs. */
  attemptAt: number | null;
  /** The agent's latest activity while it works ("Edit src/login.ts", "Bash npm test"). */
  activity: string | null;
  activityAt: number | null;
  attempts: number;
  /** How many times this call has waited for a person; answers are keyed by it. */
  ask: number;
  /** Whether an agent process was ever started on its session (a call never started is started fresh, not resumed). */
  spawned: boolean;
  /** Who holds its agent session now (one process per session), if anyone. */
  hold: SessionHold | null;
  /** Seconds a claim on its ask lasts (config claim_timeout), recorded as the ask opened; null: the default. */
  claimTimeout: number | null;
  /** The decisions its current ask asks for, when not the one its kind implies (an agent's AskUserQuestion); null otherwise. */
  askDecisions: Decision[] | null;
  /** What it waits on while suspended (`person` while waiting_human); null when it does not wait. */
  waitKind: WaitKind | null;
  /** When its wait is due (a timer; an event's or run's timeout), the store's clock; null: no due time. */
  waitUntil: number | null;
  /** Who said "I'm on it" for its open ask, until the claim ages out; null when nobody (or on a read that does not join claims). */
  claim: AskClaim | null;
  startedAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/**
 * A call's agent session held by one process: a driver's agent step ('agent': token = the
 * driver's owner token, pid = the agent process once spawned) or a person's `shop continue`
 * ('continue': its own token, pid = the shop continue process).
 */
export interface SessionHold {
  kind: 'agent' | 'continue';
  token: string;
  by: string;
  host: string;
  pid: number | null;
  pidStart: string | null;
  since: number;
}

/** A person's claim on an open ask ("I'm on it"): reminders and escalation wait while it lasts. */
export interface AskClaim {
  by: string;
  channel: Channel;
  since: number;
  /** When it ages out (the store's clock). */
  until: number;
}

export type Verdict = 'approved' | 'rejected' | 'answer';

/** The driver holding a run: a token per driver (fencing), where it runs, and its lease. */
export interface RunOwner {
  token: string;
  host: string;
  pid: number;
  /** The process's start time, so a reused pid is never taken for the owner. */
  pidStart: string | null;
  leaseUntil: number;
}

/** What replay needs of a recorded call: its identity, and its result once delivered. */
export interface ReplayRecord {
  key: string;
  kind: CallKind;
  fingerprint: string;
  status: ExecutionStatus;
  /**
   * Its result as the store keeps it, JSON (null: none yet). Replay parses it only where Lua
   * takes the value: a replayed statement call (`run("coder", "…")`) never does.
   */
  resultJson: string | null;
  delivered: number | null;
}

/** A person's answer to one ask of a waiting call; immutable once recorded. */
export interface Answer {
  runId: number;
  key: string;
  ask: number;
  /** shop approve / reject / answer. */
  verdict: Verdict | null;
  /** shop signal --status. */
  status: string | null;
  message: string | null;
  /** Validated answers of a structured pause, keyed by decision id. */
  decisions: Record<string, DecisionAnswer> | null;
  responder: string;
  channel: Channel;
  answeredAt: number;
}

export interface DecisionAnswer {
  value: unknown;
  comment: string | null;
}

/** Where a change came from; `web` is a person signed in to shop serve, `link` an answer link. */
/** `api`: shop serve's /api/* with an API token (shop access add --token), a script's or a CI job's. */
export type Channel = 'cli' | 'signal' | 'continue' | 'tui' | 'engine' | 'agent' | 'worker' | 'web' | 'link' | 'api';

export interface RunEvent {
  id: number;
  runId: number;
  key: string | null;
  type: string;
  actor: string;
  channel: Channel;
  data: Record<string, unknown> | null;
  at: number;
}

/** Metrics a CLI reports for one invocation (one agent process), where it reports them. */
export interface AgentMetrics {
  costUsd: number | null;
  numTurns: number | null;
  durationMs: number | null;
  /** What this invocation used (not its session's running total); absent where the CLI says nothing. */
  tokens?: TokenCounts;
}

/** Tokens by kind: read fresh, written out, read from the prompt cache, written to it. */
export interface TokenCounts {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/** A durable timer of an ask: its on_timeout, a reminder, or the escalation. */
/** An ask's timeout, reminder and escalation; `wake`: the due time of a call waiting on the world (sleep, a wait's timeout). */
export type TimerKind = 'timeout' | 'remind' | 'escalate' | 'wake';

export interface TimerData {
  /** timeout: what it does (stuck, notify_again, default). */
  on_timeout?: 'stuck' | 'notify_again' | 'default';
  /** remind / escalate: who is told (notify entries). */
  targets?: string[];
  /** How long the ask had waited when it was due, in seconds (for the message). */
  after_seconds?: number;
}

export interface Timer {
  id: number;
  runId: number;
  key: string;
  ask: number;
  kind: TimerKind;
  dueAt: number;
  firedAt: number | null;
  data: TimerData;
}
