import type { TokenCounts } from '../../types.js';
import type { AgentDef } from '../agent-def.js';
import type { DeferredTool } from '../gates.js';
import type { StepMcp } from '../shop-mcp.js';
import type { CliName } from './cli-names.js';

export type { CliName } from './cli-names.js';

/** One headless invocation, as a dialect turns it into a command line. */
export interface DialectStep {
  bin: string;
  agent: AgentDef;
  prompt: string;
  /** Shop's instructions and the agent's, for the CLI's system prompt (or the prompt, where it has none). */
  system: string;
  /** The session to start (a CLI that takes an id up front) or resume; null: a new session the CLI names. */
  sessionId: string | null;
  resume: boolean;
  cwd: string;
  model?: string;
  budgetUsd?: number;
  /** Folders outside `cwd` the agent must be able to write (its signal file's): for CLIs that sandbox writes. */
  writable: string[];
  /** Resuming to hand a deferred tool call its decision: no prompt (the call is decided first). */
  decidingGate?: boolean;
  /** Shop's MCP server (`shop mcp`) for this session, when the running shop can start one. */
  mcp?: StepMcp | null;
}

/** How an invocation ended, as the CLI's own events say. */
export interface StepResult {
  isError: boolean;
  /** The final message (where Shop looks for a `<promise>` fallback), or the error's text. */
  text: string | null;
  /** What this invocation cost (not its session's running total), where the CLI says. */
  costUsd: number | null;
  numTurns: number | null;
  durationMs: number | null;
  /** The tokens this invocation used, where the CLI says (its session's running total where the dialect's `tokensPerSession`). */
  tokens?: TokenCounts;
  /** The HTTP status of a failed API call, where the CLI says it (Claude Code ≥ 2.1). */
  apiStatus: number | null;
  /** A tool call the CLI deferred to a person (Claude Code's `stop_reason: "tool_deferred"`). */
  deferred?: DeferredTool | null;
}

/** Reads a CLI's event stream line by line, as it is written. */
export interface EventReader {
  /** One line of the agent's stdout; true when what it tells changed. */
  read(line: string): boolean;
  /** The latest thing the agent did, as a person reads it ("Bash npm test"). */
  readonly activity: string | null;
  readonly turns: number;
  /** The session the CLI says it runs (Codex's thread id, Gemini's session id), once it says so. */
  readonly sessionId: string | null;
  readonly result: StepResult | null;
  /**
   * Set when the CLI only retries a service it cannot reach, and would go on forever (Codex
   * offline, or not logged in, says "Reconnecting... waiting for network"): the step ends.
   */
  readonly stalled: string | null;
}

/** What to try after an invocation failed in a way only the CLI's own words tell: resumed or not, and a prompt instead of a gate's decision. */
type Retry = { resume: boolean; prompt?: string } | null;

/**
 * One agent CLI: the command lines Shop builds for it, how its events read, how a person is
 * handed its session. Every dialect shares the rest — the process, its logs, the signal
 * protocol, retries, budgets, worktrees, stop and the trust rules.
 */
export interface AgentDialect {
  cli: CliName | 'command';
  /** The CLI's name for people ("Claude Code", "Codex", "Gemini CLI"). */
  label: string;
  /** Its short name, as in "Opening Codex session". */
  short: string;
  /** Who names a new session: Shop (passed up front) or the CLI (read from its events). */
  names: 'shop' | 'cli';
  argv(step: DialectStep): string[];
  reader(): EventReader;
  /** A person's interactive session on `sessionId`, in this terminal (shop continue): the arguments after the binary; null when the CLI has none. */
  handOff(sessionId: string): string[] | null;
  /** After a failed invocation, what its stderr and exit say to try once more (a session that never started, one that did). */
  retry?(failed: { resume: boolean; exitCode: number | null; stderr: string; decidingGate?: boolean }): Retry;
  /**
   * Whether Shop keeps the CLI's session transcripts in the store, so a run's sessions move with
   * it between machines (Claude Code's); otherwise a session resumes on the machine that has it.
   */
  movesSessions: boolean;
  /** Its tokens are the session's running total (Codex's thread), not the invocation's own: Shop takes the difference. */
  tokensPerSession?: boolean;
  /**
   * A CLI that never says it is not logged in (it retries the network instead): how to ask it
   * first — the arguments, what its answer says when logged out, and what the person does then.
   * Skipped when one of `keys` is set in the agent's environment (an API key needs no login).
   */
  loginCheck?: { args: string[]; loggedOut: RegExp; fix: string; keys: string[] };
  /**
   * A CLI told of Shop's MCP server by a file (its argv names the file, or `env` does): the
   * file's text, written private before the CLI starts and removed after. Without it, argv alone says it.
   */
  mcpConfig?(mcp: StepMcp): { text: string; env?: Record<string, string> };
}

/** The environment variable naming a CLI's binary, and the binary otherwise. */
export function cliBin(cli: CliName, env: NodeJS.ProcessEnv): string {
  const own = env[`SHOP_${cli.toUpperCase()}_BIN`];
  return own && own.trim() ? own : cli;
}

/** An EventReader as its dialect fills it in. */
export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One line of a CLI's JSON events, parsed; null for anything else (a CLI may print other lines). */
export function jsonLine<T>(line: string): T | null {
  const text = line.trim();
  if (!text.startsWith('{')) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
