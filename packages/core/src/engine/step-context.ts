import type { RunRequest } from '../lua/calls/run-request.js';
import type { WorkflowConfig } from '../lua/workflow-config.js';
import type { ActiveStatus, NewTimer } from '../store/store.js';
import type { Execution, Run } from '../types.js';
import type { DriveOutcome, Settled } from './outcome.js';
import type { Ownership } from './ownership.js';
import type { EnginePorts } from './ports.js';
import type { StepFiles } from './rules-in-force.js';

// What a host call is handed by the engine (lua/calls/definition.ts's CallWorld): apart from the
// engine's agent step, which reaches every call through the registry.

/** What an agent step needs of the driver that runs it. */
export interface StepContext {
  ports: EnginePorts;
  run: Run;
  /** The driver's owner token: every write is fenced by it. */
  token: string;
  config(): WorkflowConfig;
  /** The run's status once `key` waits for a person, or (`world`) on the world (others may still be running). */
  statusWhenWaiting(key: string, world?: boolean): ActiveStatus;
  /** The timers an ask gets as it opens (config{human_timeout, remind_after…}, a pause's deadline). */
  timersFor(ask: { kind: string; request: unknown }): NewTimer[];
  /** The run's rule files, looked at around each step's process (rules-in-force.ts). */
  files: StepFiles;
  /**
   * Drives a child run here, as this driver drives its parent (waiting on in place with
   * `shop run --wait`, else until it ends or waits); taken unless `owner` holds it already.
   * Absent where nothing is driven (a dry replay).
   */
  driveChild?(runId: number, signal: AbortSignal, owner?: Ownership): Promise<DriveOutcome>;
}

/** The agent step as run() uses it (agent-step.ts's AgentStep). */
export interface AgentCalls {
  call(key: string, req: RunRequest, rec: Execution | undefined, signal: AbortSignal): Promise<Settled>;
}
