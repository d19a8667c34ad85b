import type { Containment } from './containment.js';

// What starting an agent takes and gives (agent-host.ts, start-directly.ts): apart, so neither imports the other for it.

/** An agent process to start: the leader of a process group of its own, its output straight into two files (0600). */
export interface AgentStart {
  file: string;
  args: string[];
  cwd: string;
  /** The whole environment the agent gets. */
  env: Record<string, string>;
  stdoutFile: string;
  stderrFile: string;
}

export interface AgentExit {
  code: number | null;
  /** It could not be started (ENOENT, EACCES, E2BIG…). */
  error?: NodeJS.ErrnoException;
  /** It was started, but the host that watched it ended: the agent was stopped, its end unknown. */
  lost?: string;
}

export interface StartedAgent {
  /** The leader of the agent's process group (in a PID namespace: `unshare`, the namespace's parent). */
  pid: number | undefined;
  /** How its processes are held together (containment.ts). */
  containment: Containment;
  done: Promise<AgentExit>;
}

/** What the host (or this process) is asked to start: the contained command line, and the step's marker. */
export interface Contained extends AgentStart {
  containment: Containment;
  /** SHOP_STEP in the agent's environment: leftovers are found by it where no PID namespace holds them. */
  marker: string;
}
