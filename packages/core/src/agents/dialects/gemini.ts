import { capText } from '../../text.js';
import { geminiUsage, withTokens } from '../reported-usage.js';
import { describeTool } from '../stream-events.js';
import { MCP_SERVER_NAME, MCP_TOOLS, mcpServerEntry } from '../shop-mcp.js';
import { jsonLine, type AgentDialect, type DialectStep, type EventReader, type Mutable } from './dialect.js';

/**
 * Google's Gemini CLI (checked against 0.61): `gemini -p … --output-format stream-json`, a new
 * session named by Shop (`--session-id`, which cannot be combined with `--resume`). It has no
 * system-prompt flag: a new session's prompt carries the instructions. `--skip-trust`: Shop
 * runs it in the run's workspace, which Gemini would otherwise refuse as untrusted (exit 55).
 * Its shell tool exists in headless mode only with `--yolo` (an agent with `permission_mode:
 * bypassPermissions`); without it the agent reports through Shop's MCP server (mcpConfig), whose
 * tools alone are trusted, so it needs no `--yolo`.
 */
function geminiArgv(step: DialectStep): string[] {
  const { agent } = step;
  const prompt = step.resume ? step.prompt : `${step.system}\n\n---\n\n${step.prompt}`;
  const argv = [step.bin, '-p', prompt, '--output-format', 'stream-json', '--skip-trust'];
  if (step.sessionId) argv.push(step.resume ? '--resume' : '--session-id', step.sessionId);
  const model = step.model ?? agent.model;
  if (model) argv.push('-m', model);
  const mode = APPROVAL[agent.permissionMode ?? ''];
  if (mode === 'yolo') argv.push('--yolo');
  else if (mode) argv.push('--approval-mode', mode);
  if (step.writable.length) argv.push('--include-directories', step.writable.join(','));
  return argv;
}

/** Claude Code's permission modes (the agents' front matter) as Gemini's approval modes. */
const APPROVAL: Record<string, string> = {
  bypassPermissions: 'yolo',
  dontAsk: 'yolo',
  acceptEdits: 'auto_edit',
  plan: 'plan',
};

type GeminiEvent = {
  type?: string;
  session_id?: string;
  role?: string;
  content?: string;
  delta?: boolean;
  tool_name?: string;
  parameters?: Record<string, unknown>;
  status?: string;
  error?: { type?: string; message?: string };
  stats?: { duration_ms?: number };
};

/** Reads `--output-format stream-json`: init, message, tool_use, tool_result, error, result. */
function geminiReader(): EventReader {
  let said = '';
  let lastRole: string | null = null;
  const r: Mutable<EventReader> = {
    activity: null,
    turns: 0,
    sessionId: null,
    result: null,
    stalled: null,
    read(line) {
      const e = jsonLine<GeminiEvent>(line);
      switch (e?.type) {
        case 'init':
          r.sessionId = typeof e.session_id === 'string' ? e.session_id : r.sessionId;
          return true;
        case 'message': {
          if (e.role !== 'assistant' || typeof e.content !== 'string') {
            lastRole = e.role ?? null;
            return false;
          }
          // A new assistant message after the user's or a tool's: a turn, its text anew.
          if (lastRole !== 'assistant' || !e.delta) {
            r.turns++;
            said = '';
          }
          lastRole = 'assistant';
          said += e.content;
          if (!said.trim()) return false;
          r.activity = capText(said.trim().split('\n')[0]!, 100);
          return true;
        }
        case 'tool_use':
          lastRole = 'tool';
          r.activity = describeTool(e.tool_name ?? 'tool', e.parameters ?? {});
          return true;
        case 'result':
          r.result = {
            isError: e.status !== 'success',
            text: e.status === 'success' ? said || null : (e.error?.message ?? 'the session failed'),
            costUsd: null,
            ...withTokens(geminiUsage(e.stats)),
            numTurns: r.turns,
            durationMs: e.stats?.duration_ms ?? null,
            apiStatus: null,
          };
          return true;
        default:
          return false;
      }
    },
  };
  return r;
}

export const gemini: AgentDialect = {
  cli: 'gemini',
  label: 'Gemini CLI',
  short: 'Gemini',
  names: 'shop',
  argv: geminiArgv,
  reader: geminiReader,
  handOff: (sessionId) => ['--resume', sessionId],
  retry({ resume, exitCode, stderr }) {
    // A session that never got a reply is not kept by Gemini: start it afresh under its id.
    if (resume && exitCode === 42 && /No previous sessions found/.test(stderr)) return { resume: false };
    return null;
  },
  movesSessions: false,
  // Gemini reads settings from several files; GEMINI_CLI_SYSTEM_DEFAULTS_PATH names the lowest of
  // them (the user's and the project's still apply, their mcpServers merged with Shop's). trust:
  // Gemini's policy allows the server's tools without a confirmation, which headless mode cannot ask.
  mcpConfig: (mcp) => ({
    text: JSON.stringify({
      mcpServers: { [MCP_SERVER_NAME]: { ...mcpServerEntry(mcp), trust: true, includeTools: [...MCP_TOOLS] } },
    }),
    env: { GEMINI_CLI_SYSTEM_DEFAULTS_PATH: mcp.file },
  }),
};
