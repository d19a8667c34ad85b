import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentInvocation, AgentOutcome, AgentRunner } from '../../agents/agent-runner.js';
import { writeSignal } from '../../signals/signal.js';

/** One scripted agent turn: what it reports, how, and how its process ends. */
export interface ScriptedTurn {
  status?: string;
  summary?: string;
  reason?: string;
  awaiting?: string;
  fields?: Record<string, unknown>;
  /** How it reports: the signal file (default), a <promise> tag in its output, or not at all. */
  via?: 'file' | 'promise' | 'none';
  /** Text written verbatim as the signal file (malformed or half-written signals). */
  raw?: string;
  /** A failure the runner itself knows of (Claude's is_error, a timeout, a missing binary). */
  error?: string;
  exitCode?: number;
  /** The agent's final text. */
  output?: string;
  costUsd?: number;
  numTurns?: number;
  /** Time the turn takes before it reports. */
  delayMs?: number;
  /** The session defers this tool call to a person (a gate, AskUserQuestion): nothing is reported. */
  defer?: { name: string; input: Record<string, unknown> };
  /** What the agent does to the world while it works (say, edits its own agent file), before it reports. */
  during?: () => void;
}

export type Script = Record<string, ScriptedTurn[]>;

/**
 * The in-process twin of CliRunner: the n-th invocation of an agent plays its n-th
 * scripted turn (the last one repeats), writing SHOP_SIGNAL_FILE as a real agent would.
 * No child processes, so tests and benchmarks measure the engine alone.
 */
export class ScriptedRunner implements AgentRunner {
  readonly invocations: AgentInvocation[] = [];
  /** Invocations under way now, and the most there ever were at once. */
  active = 0;
  maxActive = 0;
  /** Invocations stopped by their abort signal (a stop, a cancel, Ctrl-C). */
  aborted: AgentInvocation[] = [];

  constructor(
    private readonly script: Script = {},
    private readonly fallback: ScriptedTurn = { status: 'DONE' },
  ) {}

  /** Invocations so far, of one agent or of all. */
  count(agent?: string): number {
    return agent ? this.invocations.filter((i) => i.agent.name === agent).length : this.invocations.length;
  }

  async invoke(inv: AgentInvocation): Promise<AgentOutcome> {
    const turns = this.script[inv.agent.name];
    const turn = turns?.length ? turns[Math.min(this.count(inv.agent.name), turns.length - 1)] : this.fallback;
    this.invocations.push(inv);
    // A process "started": its session exists from now on (a pid no real process has).
    inv.onSpawn?.(4_000_000 + this.invocations.length);
    // A CLI that names its own sessions (Codex) tells the one it started.
    if (inv.sessionId === null) inv.onSession?.(`thread-${this.invocations.length}`);
    this.maxActive = Math.max(this.maxActive, ++this.active);
    try {
      if (turn.delayMs) await sleep(turn.delayMs, inv.signal);
    } finally {
      this.active--;
    }
    turn.during?.();
    if (inv.signal?.aborted) {
      this.aborted.push(inv);
      return { exitCode: null, error: 'killed', output: '', metrics: { costUsd: null, numTurns: null, durationMs: 0 } };
    }
    if (turn.defer) {
      return {
        exitCode: 0,
        error: null,
        output: '',
        metrics: { costUsd: turn.costUsd ?? null, numTurns: 1, durationMs: 0 },
        deferred: { id: `toolu_${this.invocations.length}`, ...turn.defer },
      };
    }
    const body = { ...turn.fields, status: turn.status ?? 'DONE' } as Record<string, unknown>;
    for (const k of ['summary', 'reason', 'awaiting'] as const) if (turn[k] !== undefined) body[k] = turn[k];
    const file = inv.env.SHOP_SIGNAL_FILE;
    const via = turn.via ?? 'file';
    if (!turn.error && file) {
      if (turn.raw !== undefined) {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, turn.raw);
      } else if (via === 'file') writeSignal(file, body as { status: string });
    }
    let output = turn.output ?? String(turn.summary ?? turn.reason ?? 'done');
    if (via === 'promise') output += `\n<promise>${body.status}: ${turn.summary ?? turn.reason ?? ''}</promise>`;
    return {
      exitCode: turn.exitCode ?? (turn.error ? 1 : 0),
      error: turn.error ?? null,
      output,
      metrics: { costUsd: turn.costUsd ?? null, numTurns: turn.numTurns ?? null, durationMs: turn.delayMs ?? 0 },
    };
  }
}

/** A delay a kill cuts short, as it would a real agent's process. */
function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });
}
