import type { AgentDef } from '../agents/agent-def.js';
import type { AgentRunner } from '../agents/agent-runner.js';
import type { SignalSource } from '../signals/signal-source.js';
import type { Store } from '../store/store.js';
import type { Execution } from '../types.js';

export interface Clock {
  now(): number;
}

/** What the engine tells the outside world while it drives a run (the CLI prints it). */
export type Notice =
  | { type: 'agent_started'; key: string; agent: string; sessionId: string; resumed: boolean }
  | { type: 'agent_finished'; key: string; agent: string; status: string; text: string | null }
  | { type: 'waiting'; execution: Execution }
  | { type: 'resumed'; key: string; by: string | null }
  | { type: 'log'; message: string };

export interface Notifier {
  notify(notice: Notice): void;
}

export interface ShellResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Everything the engine touches, injected; tests pass twins. */
export interface EnginePorts {
  store: Store;
  runner: AgentRunner;
  loadAgent(name: string): AgentDef;
  readWorkflow(path: string): string;
  /** Opened only when a live process waits for a person. */
  openSignals(): SignalSource;
  shell(cmd: string, cwd: string): Promise<ShellResult>;
  clock: Clock;
  notifier: Notifier;
  newSessionId(): string;
  pid: number;
  isAlive(pid: number): boolean;
  /** Kill an orphaned agent's process group left behind by a dead driver. */
  killOrphan(pid: number): Promise<void>;
  paths: { signalsDir: string; runsDir: string; binDir: string | null };
}
