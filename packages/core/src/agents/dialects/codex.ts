import { capText } from '../../text.js';
import { codexUsage, withTokens } from '../reported-usage.js';
import { describeTool } from '../stream-events.js';
import { MCP_ENV, MCP_SERVER_NAME, MCP_TOOLS, type StepMcp } from '../shop-mcp.js';
import {
  jsonLine,
  type AgentDialect,
  type DialectStep,
  type EventReader,
  type Mutable,
  type StepResult,
} from './dialect.js';

/**
 * OpenAI's Codex CLI (checked against 0.169): `codex exec --json`, which names its own thread
 * (`thread.started`); feedback and re-invocations resume it with `codex exec … resume <id>`,
 * whose sandbox and folder flags must come before `resume`. Codex has no system-prompt flag:
 * a new thread's first prompt carries the instructions. It never says it is logged out or
 * offline — it retries ("Reconnecting... waiting for network") forever — so the reader calls
 * that a stall and the step ends. stdin must not be a terminal or pipe (the host gives it none).
 */
function codexArgv(step: DialectStep): string[] {
  const { agent } = step;
  const argv = [step.bin, 'exec', '--json', '--skip-git-repo-check'];
  const model = step.model ?? agent.model;
  if (model) argv.push('-m', model);
  if (agent.permissionMode === 'bypassPermissions') argv.push('--dangerously-bypass-approvals-and-sandbox');
  else {
    // Writes stay in the workspace, plus the folder of the agent's signal file (shop report).
    argv.push('-s', agent.permissionMode === 'plan' ? 'read-only' : 'workspace-write');
    for (const dir of step.writable) argv.push('--add-dir', dir);
  }
  argv.push('-C', step.cwd);
  if (step.mcp) argv.push(...codexMcp(step.mcp));
  if (step.resume && step.sessionId) return [...argv, 'resume', step.sessionId, step.prompt];
  return [...argv, `${step.system}\n\n---\n\n${step.prompt}`];
}

/**
 * Shop's MCP server as `-c` config overrides (values are TOML; a JSON string or list of strings is
 * one). Codex passes its servers only a few variables of its own: env_vars names the step's, so
 * their values (the signal file's path) stay off the command line. Exactly Shop's tools, approved.
 */
function codexMcp(mcp: StepMcp): string[] {
  const key = `mcp_servers.${MCP_SERVER_NAME}`;
  return [
    ['command', JSON.stringify(mcp.command)],
    ['args', JSON.stringify(mcp.args)],
    ['env_vars', JSON.stringify(MCP_ENV)],
    ['enabled_tools', JSON.stringify(MCP_TOOLS)],
    ['default_tools_approval_mode', '"approve"'],
  ].flatMap(([k, v]) => ['-c', `${key}.${k}=${v}`]);
}

type Item = {
  type?: string;
  text?: string;
  command?: string;
  message?: string;
  changes?: { path?: string; kind?: string }[];
  tool?: string;
  server?: string;
  query?: string;
};
type CodexEvent = {
  type?: string;
  thread_id?: string;
  item?: Item;
  message?: string;
  error?: { message?: string };
  usage?: unknown;
};

/** Reads `codex exec --json`: thread.started, turn.*, item.* (agent_message, command_execution, file_change…), error. */
function codexReader(): EventReader {
  let lastMessage: string | null = null;
  const started = Date.now();
  let usage: unknown = null;
  const end = (isError: boolean, text: string | null): StepResult => ({
    isError,
    text,
    costUsd: null,
    ...withTokens(codexUsage(usage)),
    numTurns: r.turns,
    durationMs: Date.now() - started,
    apiStatus: null,
  });
  const r: Mutable<EventReader> = {
    activity: null,
    turns: 0,
    sessionId: null,
    result: null,
    stalled: null,
    read(line) {
      const e = jsonLine<CodexEvent>(line);
      switch (e?.type) {
        case 'thread.started':
          r.sessionId = typeof e.thread_id === 'string' ? e.thread_id : r.sessionId;
          return true;
        case 'turn.started':
          r.turns++;
          return true;
        case 'item.started':
        case 'item.completed': {
          const said = itemActivity(e.item ?? {});
          if (e.type === 'item.completed' && e.item?.type === 'agent_message' && typeof e.item.text === 'string')
            lastMessage = e.item.text;
          if (!said) return false;
          r.activity = said;
          return true;
        }
        case 'turn.completed':
          usage = e.usage;
          r.result = end(false, lastMessage);
          return true;
        case 'turn.failed':
          r.result = end(true, e.error?.message ?? 'the turn failed');
          return true;
        case 'error':
          // Not fatal by itself (a reconnect); waiting for the network is: Codex would retry forever.
          if (typeof e.message === 'string' && /waiting for network/i.test(e.message))
            r.stalled = capText(e.message, 300);
          return false;
        default:
          return false;
      }
    },
  };
  return r;
}

function itemActivity(item: Item): string | null {
  switch (item.type) {
    case 'command_execution':
      return describeTool('Bash', { command: item.command ?? '' });
    case 'file_change':
      return describeTool('Edit', { file_path: item.changes?.[0]?.path ?? '' });
    case 'mcp_tool_call':
      return `${item.server ?? 'mcp'} ${item.tool ?? ''}`.trim();
    case 'web_search':
      return describeTool('WebSearch', { query: item.query ?? '' });
    case 'agent_message':
    case 'reasoning':
      return item.text?.trim() ? capText(item.text.trim().split('\n')[0]!, 100) : null;
    default:
      return null;
  }
}

export const codex: AgentDialect = {
  cli: 'codex',
  label: 'Codex',
  short: 'Codex',
  names: 'cli',
  argv: codexArgv,
  reader: codexReader,
  handOff: (sessionId) => ['resume', sessionId],
  retry({ resume, exitCode, stderr }) {
    // A thread Shop recorded but this machine has no rollout of: start afresh.
    if (resume && exitCode && /no rollout found for thread id/.test(stderr)) return { resume: false };
    return null;
  },
  movesSessions: false,
  tokensPerSession: true,
  // Not logged in, `codex exec` tries the network over and over (as if it were down): ask first.
  loginCheck: {
    args: ['login', 'status'],
    loggedOut: /not logged in/i,
    fix: 'run `codex login` on this machine, or give the agent CODEX_API_KEY',
    keys: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
  },
};
