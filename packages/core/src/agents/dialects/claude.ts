import { signalProtocol } from '../signal-protocol.js';
import type { AgentDef } from '../agent-def.js';
import type { DeferredTool } from '../gates.js';
import { asksQuestions } from '../gate-spec.js';
import { MCP_SERVER_NAME, MCP_TOOLS, mcpServerEntry } from '../shop-mcp.js';
import { newStreamState, readStreamLine, type ClaudeResult } from '../stream-events.js';
import { claudeModelUsage, claudeUsage, usd } from '../reported-usage.js';
import {
  jsonLine,
  type AgentDialect,
  type DialectStep,
  type EventReader,
  type Mutable,
  type StepResult,
} from './dialect.js';

/** Shop's instructions after the agent's own: the system prompt every dialect gives its CLI. */
export function systemPrompt(instructions: string): string {
  return [instructions, signalProtocol()].filter(Boolean).join('\n\n');
}

/** Claude Code's real flags: `-p … --output-format stream-json --verbose`, its session named by Shop. */
function claudeArgv(step: DialectStep): string[] {
  const { agent } = step;
  // Deciding a deferred tool call: resumed with no prompt, so the call is decided before anything else.
  const argv = [
    step.bin,
    '-p',
    ...(step.decidingGate ? [] : [step.prompt]),
    step.resume ? '--resume' : '--session-id',
    step.sessionId!,
    '--output-format',
    'stream-json',
    '--verbose',
    '--append-system-prompt',
    step.system,
  ];
  const model = step.model ?? agent.model;
  if (model) argv.push('--model', model);
  if (step.budgetUsd !== undefined) argv.push('--max-budget-usd', String(Math.round(step.budgetUsd * 10_000) / 10_000));
  if (agent.permissionMode) argv.push('--permission-mode', agent.permissionMode);
  // Shop's MCP server, from a file (its environment is the step's); its tools allowed, as the agent's own are.
  if (step.mcp) argv.push('--mcp-config', step.mcp.file);
  const allowed = [...agent.allowedTools, ...(step.mcp ? MCP_TOOLS.map((t) => `mcp__${MCP_SERVER_NAME}__${t}`) : [])];
  if (allowed.length) argv.push('--allowed-tools', ...allowed);
  const asks = asksPerson(agent);
  if (agent.gates?.length || asks) {
    // Shop's hook for this session only: never the user's settings files. Without gates it sees AskUserQuestion alone.
    const matcher = agent.gates?.length ? '*' : 'AskUserQuestion';
    argv.push(
      '--settings',
      JSON.stringify({ hooks: { PreToolUse: [{ matcher, hooks: [{ type: 'command', command: 'shop gate' }] }] } }),
    );
  }
  // AskUserQuestion exists in -p mode only with a permission prompt tool.
  if (asks) argv.push('--permission-prompt-tool', 'stdio');
  return argv;
}

/**
 * Whether the agent's questions (AskUserQuestion) go to a person: on for every Claude Code agent
 * unless its front matter says `ask_user_question: false` — and then still when its gates hold it.
 */
export function asksPerson(agent: AgentDef): boolean {
  return agent.askUserQuestion !== false || asksQuestions(agent.gates ?? []);
}

/** Claude Code's stream-json (stream-events.ts), as every dialect's reader tells it. */
export function claudeReader(): EventReader {
  const state = newStreamState();
  const r: Mutable<EventReader> = {
    activity: null,
    turns: 0,
    sessionId: null,
    result: null,
    stalled: null,
    read(line) {
      const changed = readStreamLine(state, line);
      if (!r.sessionId && line.includes('"session_id"')) {
        const id = jsonLine<{ session_id?: unknown }>(line)?.session_id;
        if (typeof id === 'string') r.sessionId = id;
      }
      r.activity = state.activity;
      r.turns = state.turns;
      r.result = state.result ? fromClaude(state.result) : null;
      return changed;
    },
  };
  return r;
}

export function fromClaude(r: ClaudeResult): StepResult {
  // This process's own spend: a resumed session's totals include the invocations before it.
  const own = claudeModelUsage(r.model_usage_since_last_result);
  return {
    isError: Boolean(r.is_error),
    text: r.result ?? null,
    costUsd: own ? own.costUsd : usd(r.total_cost_usd),
    tokens: own ? own.tokens : claudeUsage(r.usage),
    numTurns: r.num_turns ?? null,
    durationMs: r.duration_ms ?? null,
    apiStatus: r.api_error_status ?? null,
    deferred: !r.is_error && r.stop_reason === 'tool_deferred' ? deferredOf(r.deferred_tool_use) : null,
  };
}

/** Claude Code's `deferred_tool_use`, read without trusting its shape. */
function deferredOf(d: unknown): DeferredTool | null {
  const t = d as { id?: unknown; name?: unknown; input?: unknown } | null;
  if (!t || typeof t.id !== 'string' || typeof t.name !== 'string') return null;
  return {
    id: t.id,
    name: t.name,
    input: t.input && typeof t.input === 'object' ? (t.input as Record<string, unknown>) : {},
  };
}

export const claude: AgentDialect = {
  cli: 'claude',
  label: 'Claude Code',
  short: 'Claude',
  names: 'shop',
  argv: claudeArgv,
  reader: claudeReader,
  handOff: (sessionId) => ['--resume', sessionId],
  retry({ resume, exitCode, stderr, decidingGate }) {
    if (!exitCode) return null;
    // A decision handed to a call that is no longer pending (it ran before the driver died): go on with a prompt.
    if (decidingGate && /No deferred tool marker found/.test(stderr))
      return { resume: true, prompt: 'Continue the task and report when done.' };
    // A session that never got going (the first attempt died at once) cannot be resumed:
    // Claude Code answers "No conversation found". Start it under the same id instead.
    if (resume && /No conversation found/.test(stderr)) return { resume: false };
    // The other way round: a session Shop thought never started did (its transcript is here,
    // say its agent died before its pid was recorded): Claude Code refuses the id as "already in use".
    if (!resume && /Session ID \S+ is already in use/.test(stderr)) return { resume: true };
    return null;
  },
  movesSessions: true,
  mcpConfig: (mcp) => ({
    text: JSON.stringify({ mcpServers: { [MCP_SERVER_NAME]: { type: 'stdio', ...mcpServerEntry(mcp) } } }),
  }),
};
