import type { AgentMetrics } from '../types.js';
import type { AgentDef } from './agent-def.js';
import type { Transient } from './transient.js';
import type { DeferredTool, GateDecision } from './gates.js';
import type { Containment } from './containment.js';
import type { ShopMcpCommand } from './shop-mcp.js';

/** Everything a runner needs for one agent invocation. */
export interface AgentInvocation {
  agent: AgentDef;
  prompt: string;
  /** The session to start (Shop names it) or resume; null: a new session its CLI names (Codex), told through onSession. */
  sessionId: string | null;
  /** Resume the session instead of starting it (re-invocation after a crash, or feedback). */
  resume: boolean;
  cwd: string;
  env: Record<string, string>;
  model?: string;
  /** Seconds; the whole process group is killed after it. */
  timeout?: number;
  /** USD this invocation may spend (Claude Code's --max-budget-usd). */
  budgetUsd?: number;
  stdoutFile: string;
  stderrFile: string;
  /** The agent's process started: the leader of its group, and how its processes are held together (containment.ts). */
  onSpawn?: (pid: number, containment?: Containment) => void;
  /** A person's decision on the call the session deferred: handed to Shop's hook, the session resumed with no prompt. */
  gate?: GateDecision;
  /** The session a CLI named itself (Codex's thread), as soon as its events say it. */
  onSession?: (sessionId: string) => void;
  /** The agent's progress as its event stream tells it (stream-json), while it works. */
  onActivity?: (activity: { text: string; numTurns: number }) => void;
  signal?: AbortSignal;
  /** How to start Shop's MCP server (`shop mcp`) for the agent's CLI; none where no shop binary runs (shop test). */
  mcp?: ShopMcpCommand | null;
}

export interface AgentOutcome {
  exitCode: number | null;
  /** Set when the runner itself knows the step failed (timeout, spawn failure, is_error). */
  error: string | null;
  /** The agent's final text (Claude's JSON `result`, or raw stdout). */
  output: string;
  metrics: AgentMetrics;
  /**
   * An in-process agent (shop test's simulated agents, a benchmark's stub) may hand its report
   * over here instead of writing SHOP_SIGNAL_FILE; it is checked like a file's. A real agent
   * reports through the file, which outlives a driver that dies.
   */
  report?: unknown;
  /** A tool call the agent's CLI deferred to a person (its session ended there, to resume once decided). */
  deferred?: DeferredTool | null;
  /** The session the CLI ran, as its events said (null when they did not). */
  sessionId?: string | null;
  /** Set when the failure may pass on its own (API overloaded, rate limit, 5xx, network): the engine retries it. */
  transient?: Transient | null;
}

/** The port the engine drives agents through; CliRunner is the real one. */
export interface AgentRunner {
  invoke(inv: AgentInvocation): Promise<AgentOutcome>;
}
