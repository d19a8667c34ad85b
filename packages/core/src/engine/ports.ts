import type { AgentDef } from '../agents/agent-def.js';
import type { AgentRunner } from '../agents/agent-runner.js';
import type { ModuleSource } from '../lua/lua-modules.js';
import type { LocalTranscript } from '../agents/claude-transcript.js';
import type { ShRequest } from '../lua/calls/sh-request.js';
import type { SignalOptions, SignalSource } from '../signals/signal-source.js';
import type { Store } from '../store/store.js';
import type { Execution, Run } from '../types.js';
import type { Notices } from './notices.js';

export interface Clock {
  now(): number;
}

/** What the engine tells the outside world while it drives a run (the CLI prints it). */
export type Notice =
  /** `sessionId` null: a new session its CLI names itself (Codex), not known yet. */
  | { type: 'agent_started'; key: string; agent: string; sessionId: string | null; resumed: boolean }
  | { type: 'agent_activity'; key: string; agent: string; text: string; since: number }
  | { type: 'agent_finished'; key: string; agent: string; status: string; text: string | null }
  /** A transient failure (overloaded, rate limit, network): the same session is tried again after `delayMs`. */
  | { type: 'agent_retry'; key: string; agent: string; error: string; attempt: number; of: number; delayMs: number }
  | { type: 'waiting'; execution: Execution }
  /** A call waits on the world (a timer, an event, another run): no person is asked. */
  | { type: 'waiting_on'; execution: Execution }
  /** What a call waited on came (its timer fired …): the run goes on. */
  | { type: 'woke'; key: string; why: 'timer' | 'event' | 'run' }
  /** A person's answer came in (`by`; after a `shop continue` session, the agent's report recorded as theirs). */
  | { type: 'resumed'; key: string; by: string | null }
  | { type: 'log'; message: string; key: string }
  /** The rule files now say otherwise than the run recorded (a person's edit): the run keeps its own; said once. */
  | { type: 'rules_kept'; runId: number; differs: string[] };

export interface Notifier {
  notify(notice: Notice): void;
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Set when the output passed the cap and was cut. */
  truncated?: boolean;
  cap_bytes?: number;
  timed_out?: boolean;
}

/** This process, as an owner of runs: where it runs, and how to tell it from a reused pid. */
interface ProcessIdentity {
  host: string;
  pid: number;
  pidStart: string | null;
}

/** A look at the files that decide a run's rules and code: each one's content hash (sha256) by its path as shown to people. */
export type FileLook = ReadonlyMap<string, string>;

/** The files that decide a run's rules and code — its workflow file and every agent definition — looked at around each step. */
export interface RuleFiles {
  /** The agents the project defines now (agents/*.md, .claude/agents/*.md). */
  agentNames(): string[];
  /** A file's path as shown to people: relative to the project when inside it. */
  shown(path: string): string;
  /**
   * The workflow file and every agent definition, each by its shown path with its content hash;
   * absent files are not in it. Cheap when nothing changed (a stat each). `reuseMs`: a look taken
   * no longer ago may be given again — before a step an older look only finds more, never less.
   */
  look(workflowPath: string, reuseMs?: number): FileLook;
}

/** Everything the engine touches, injected; tests pass twins. */
export interface EnginePorts {
  store: Store;
  runner: AgentRunner;
  loadAgent(name: string): AgentDef;
  readWorkflow(path: string): string;
  /** What require() loads: the project's workflows/lib (absent: no module can be loaded). */
  modules?(): ModuleSource;
  /**
   * Opened only when a live process waits for a person. `rescanMs`: how often it wakes with no
   * change seen (0: never — a worker whose store pushes wakes sweeps on its own); `answered`:
   * sees each answer's wake-up first (a worker drives a run it holds at once).
   */
  openSignals(opts?: SignalOptions): SignalSource;
  shell(req: ShRequest, cwd: string, signal: AbortSignal): Promise<ShellResult>;
  clock: Clock;
  /** Backoff of transient agent failures (absent: 2 s doubling to 60 s, real time). */
  retryTiming?: RetryTiming;
  notifier: Notifier;
  /** config{notify}: people told when a run needs them (reminders, escalation too). */
  notices: Notices;
  newSessionId(): string;
  /** A fresh owner token for a driver. */
  newToken(): string;
  self: ProcessIdentity;
  /** Whether the process that owns a run on this host is still the one that took it. */
  processAlive(pid: number, pidStart: string | null): boolean;
  /** The start time of a process this one spawned (stored with an agent's pid). */
  processStart(pid: number): string | null;
  /**
   * End what a gone driver (or shop continue) left on a session and wait until it is gone: the
   * recorded agent's process group (pid + start time), and any process naming `sessionId`.
   * Throws when something will not end. True when something was running on the session.
   */
  killOrphan(pid: number | null, pidStart: string | null, sessionId?: string | null): Promise<boolean | void>;
  /**
   * A --worktree run ended: its worktree is removed unless `keep` (config keep_worktree) or
   * it holds uncommitted work. Absent in twins without a disk. Returns why it stayed, or null.
   */
  endWorkspace?(run: Run, keep: boolean): string | null;
  /** The workflow and agent files, watched around each step (absent: not watched — shop test, twins without a disk). */
  ruleFiles?: RuleFiles;
  /** Claude Code's session transcripts on this machine, kept in the store between steps (absent: not moved). */
  sessions?: SessionFiles;
  /** W3C TRACEPARENT for an agent's attempt while traces are exported (absent: none given; tracing/open-tracing.ts). */
  traceparent?(run: Run, key: string, attempt: number): string;
  /** How long a driver's lease lasts without renewal. */
  leaseMs: number;
  /** `home`: the project's .shop folder, given to agents (SHOP_HOME) so `shop report` finds this store from any workspace. */
  paths: { signalsDir: string; runsDir: string; binDir: string | null; home?: string };
  /**
   * Loads what only driving needs (the runner, agent definitions, the signal watcher) before
   * the engine's operations use them: a read-only command never loads them. Absent: all loaded.
   */
  loadEngine?(): Promise<void>;
}

/** How long retries wait, and the waiting itself: a port, so tests fast-forward. */
export interface RetryTiming {
  /** The first retry's ceiling; each next one doubles it … */
  baseMs: number;
  /** … up to this. */
  capMs: number;
  /** Resolves after `ms`, or rejects with Aborted as soon as `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
  /** In [0, 1): the jitter. */
  random(): number;
}

/** Claude Code's transcripts on this machine, and how large one the store keeps. */
export interface SessionFiles {
  read(cwd: string, sessionId: string, maxBytes: number): LocalTranscript;
  write(cwd: string, sessionId: string, data: Buffer): void;
  /** The largest transcript kept in the store (bytes, before compression). */
  cap: number;
}
