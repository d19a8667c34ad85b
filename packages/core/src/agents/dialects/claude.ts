import { signalProtocol } from '../signal-protocol.js';
import { newStreamState, readStreamLine, type ClaudeResult } from '../stream-events.js';
import type { AgentDialect, DialectStep, EventReader, StepResult } from './dialect.js';

/** Shop's instructions after the agent's own: the system prompt every dialect gives its CLI. */
export function systemPrompt(instructions: string): string {
  return [instructions, signalProtocol()].filter(Boolean).join('\n\n');
}

/** Claude Code's real flags: `-p … --output-format stream-json --verbose`, its session named by Shop. */
export function claudeArgv(step: DialectStep): string[] {
  const { agent } = step;
  const argv = [step.bin, '-p', step.prompt, step.resume ? '--resume' : '--session-id', step.sessionId!, '--output-format', 'stream-json', '--verbose', '--append-system-prompt', step.system];
  const model = step.model ?? agent.model;
  if (model) argv.push('--model', model);
  if (step.budgetUsd !== undefined) argv.push('--max-budget-usd', String(Math.round(step.budgetUsd * 10_000) / 10_000));
  if (agent.permissionMode) argv.push('--permission-mode', agent.permissionMode);
  if (agent.allowedTools.length) argv.push('--allowed-tools', ...agent.allowedTools);
  return argv;
}

/** Claude Code's stream-json (stream-events.ts), as every dialect's reader tells it. */
export function claudeReader(): EventReader {
  const state = newStreamState();
  let sessionId: string | null = null;
  return {
    read(line) {
      const changed = readStreamLine(state, line);
      if (!sessionId && line.includes('"session_id"')) sessionId = sessionOf(line);
      return changed;
    },
    get activity() {
      return state.activity;
    },
    get turns() {
      return state.turns;
    },
    get sessionId() {
      return sessionId;
    },
    get result() {
      return state.result ? fromClaude(state.result) : null;
    },
    stalled: null,
  };
}

export function fromClaude(r: ClaudeResult): StepResult {
  return {
    isError: Boolean(r.is_error), text: r.result ?? null, costUsd: r.total_cost_usd ?? null,
    numTurns: r.num_turns ?? null, durationMs: r.duration_ms ?? null, apiStatus: r.api_error_status ?? null,
  };
}

function sessionOf(line: string): string | null {
  try {
    const id = (JSON.parse(line) as { session_id?: unknown }).session_id;
    return typeof id === 'string' ? id : null;
  } catch {
    return null;
  }
}

export const claude: AgentDialect = {
  cli: 'claude',
  label: 'Claude Code',
  names: 'shop',
  argv: claudeArgv,
  reader: claudeReader,
  handOff: (sessionId) => ['--resume', sessionId],
  retry({ resume, exitCode, stderr }) {
    if (!exitCode) return null;
    // A session that never got going (the first attempt died at once) cannot be resumed:
    // Claude Code answers "No conversation found". Start it under the same id instead.
    if (resume && /No conversation found/.test(stderr)) return { resume: false };
    // The other way round: a session Shop thought never started did (its transcript is here,
    // say its agent died before its pid was recorded): Claude Code refuses the id as "already in use".
    if (!resume && /Session ID \S+ is already in use/.test(stderr)) return { resume: true };
    return null;
  },
  movesSessions: true,
};
