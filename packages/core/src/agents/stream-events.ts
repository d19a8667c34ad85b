import { capText } from '../text.js';

/** Claude Code's final result (the `result` event of stream-json, or the one document of json). */
export interface ClaudeResult {
  session_id?: string;
  is_error?: boolean;
  result?: string;
  total_cost_usd?: number;
  /** The main loop's tokens (the API's usage shape). */
  usage?: unknown;
  /**
   * Per-model usage and cost this process counted since its previous result (since it started,
   * for its first): what this invocation spent, where total_cost_usd and modelUsage of a resumed
   * session continue from the totals its transcript saved (Claude Code 2.1's SDK types say so).
   */
  model_usage_since_last_result?: unknown;
  num_turns?: number;
  duration_ms?: number;
  /** Claude Code ≥ 2.1 on an API failure: the HTTP status (429, 529 …) and why the turn ended ("api_error"). */
  api_error_status?: number | null;
  terminal_reason?: string;
  /** "tool_deferred": a PreToolUse hook deferred a tool call (`deferred_tool_use`) to a person. */
  stop_reason?: string;
  deferred_tool_use?: unknown;
}

/** What an agent's event stream has told so far. */
interface StreamState {
  activity: string | null;
  turns: number;
  result: ClaudeResult | null;
}

export const newStreamState = (): StreamState => ({ activity: null, turns: 0, result: null });

type Block = { type?: string; text?: string; name?: string; input?: Record<string, unknown> };

/**
 * Reads one line of `--output-format stream-json --verbose`: an assistant message's tool use
 * ("Edit src/login.ts", "Bash npm test") or text becomes the activity, each assistant message
 * a turn, the `result` event the final result. Other lines (system, user, partial events)
 * change nothing. Returns whether the state changed.
 */
export function readStreamLine(state: StreamState, line: string): boolean {
  const text = line.trim();
  if (!text.startsWith('{')) return false;
  let event: { type?: string; message?: { content?: Block[] } } & ClaudeResult;
  try {
    event = JSON.parse(text);
  } catch {
    return false;
  }
  if (event.type === 'result') {
    state.result = event;
    return true;
  }
  if (event.type !== 'assistant') return false;
  state.turns++;
  const content = Array.isArray(event.message?.content) ? event.message.content : [];
  const tool = content.filter((b) => b.type === 'tool_use').at(-1);
  const said = content.filter((b) => b.type === 'text' && b.text?.trim()).at(-1);
  if (tool) state.activity = describeTool(tool.name ?? 'tool', tool.input ?? {});
  else if (said) state.activity = capText(said.text!.trim().split('\n')[0], 100);
  return true;
}

/** "Edit src/login.ts", "Bash npm test", "Grep TODO": a tool use as a person reads it. */
export function describeTool(name: string, input: Record<string, unknown>): string {
  const first = ['file_path', 'notebook_path', 'command', 'pattern', 'path', 'url', 'query', 'description', 'prompt']
    .map((k) => input[k])
    .find((v) => typeof v === 'string' && v.trim());
  const what = typeof first === 'string' ? capText(first.trim().split('\n')[0], 80) : '';
  return what ? `${name} ${what}` : name;
}

/** The final result in an agent's stdout: one JSON document (json), or the last `result` line (stream-json). */
export function finalResult(stdout: string): ClaudeResult | null {
  const text = stdout.trim();
  if (!text.startsWith('{')) return null;
  try {
    const whole = JSON.parse(text) as ClaudeResult & { type?: string };
    return whole;
  } catch {
    // Several lines: the stream.
  }
  const state = newStreamState();
  for (const line of text.split('\n')) readStreamLine(state, line);
  return state.result;
}
