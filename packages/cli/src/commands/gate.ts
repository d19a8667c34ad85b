import { readFileSync } from 'node:fs';
import { hookOutput, matchingGate, type GateDecision } from '@shop/core/agents/gates';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

/** A tool call is a few KB; a hook's stdin past this is not one. */
const STDIN_CAP = 1024 * 1024;

/**
 * shop gate: Claude Code's PreToolUse hook in the sessions Shop starts (through --settings, never
 * the user's settings). It reads the tool call on stdin and prints the decision: the person's,
 * when Shop resumed the session with one for this very call (SHOP_GATE_DECISION); a deferral for
 * a call the agent's `gates:` name (SHOP_GATES) or AskUserQuestion; else nothing (Claude Code's
 * own rules apply). A call it cannot read is denied (exit 2, the reason on stderr): a gate fails closed.
 */
export default async function gate(_args: Parsed, ctx: Context): Promise<number> {
  const call = readCall();
  if (typeof call === 'string') return deny(ctx, call);
  const decided = parse<GateDecision>(ctx.env.SHOP_GATE_DECISION);
  if (decided && decided.tool_use_id === call.tool_use_id) {
    ctx.out(hookOutput(decided.decision === 'allow' ? 'allow' : 'deny', { reason: decided.reason, updatedInput: decided.updatedInput }));
    return 0;
  }
  const gates = parse<unknown[]>(ctx.env.SHOP_GATES);
  const list = Array.isArray(gates) ? gates.filter((g): g is string => typeof g === 'string') : [];
  if (call.tool_name === 'AskUserQuestion' || matchingGate(list, call.tool_name, call.tool_input)) ctx.out(hookOutput('defer'));
  return 0;
}

type ToolCall = { tool_name: string; tool_input: Record<string, unknown>; tool_use_id: string };

/** The hook's stdin as a tool call, or why it is not one. */
function readCall(): ToolCall | string {
  let text: string;
  try {
    const buf = readFileSync(0);
    if (buf.length > STDIN_CAP) return `the tool call on stdin is over ${STDIN_CAP} bytes`;
    text = buf.toString('utf8');
  } catch (e) {
    return `could not read the tool call on stdin (${(e as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  const call = parse<Partial<ToolCall>>(text);
  if (!call || typeof call.tool_name !== 'string' || typeof call.tool_use_id !== 'string' || typeof call.tool_input !== 'object' || call.tool_input === null) {
    return 'stdin is not a PreToolUse tool call (tool_name, tool_input, tool_use_id)';
  }
  return call as ToolCall;
}

function deny(_ctx: Context, why: string): number {
  // Claude Code takes a hook's exit 2 as a refusal, its stderr as the reason.
  process.stderr.write(`shop gate: ${why}; the call is refused\n`);
  return 2;
}

function parse<T>(text: string | undefined): T | null {
  if (!text) return null;
  try {
    return JSON.parse(text) as T;
  } catch {
    return null;
  }
}
