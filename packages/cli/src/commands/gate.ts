import { readFileSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { holdingRule, hookOutput, readGates } from '@shop/core';
import type { GateBlock, GateDecision, GatePlace } from '@shop/core';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

/** A tool call is a few KB; a hook's stdin past this is not one. */
const STDIN_CAP = 1024 * 1024;
/** Gates are a few rules; SHOP_GATES past this is not Shop's. */
const GATES_CAP = 256 * 1024;

/**
 * shop gate: Claude Code's PreToolUse hook in the sessions Shop starts (through --settings, never
 * the user's settings). It reads the tool call on stdin and prints the decision: the person's,
 * when Shop resumed the session with one for this very call (SHOP_GATE_DECISION); a deferral for
 * AskUserQuestion and for a call the agent's gates hold (SHOP_GATES, matched by core's
 * gate-rules; a command it cannot read is held); else nothing (Claude Code's own rules apply).
 * A call or gates it cannot read are refused (exit 2, the reason on stderr): a gate fails closed.
 */
export default async function gate(_args: CommandArgs<'gate'>, ctx: Context): Promise<number> {
  const call = readCall();
  if (typeof call === 'string') return deny(call);
  const decided = parse<GateDecision>(ctx.env.SHOP_GATE_DECISION);
  if (decided && call.tool_use_id !== undefined && decided.tool_use_id === call.tool_use_id) {
    ctx.out(
      hookOutput(decided.decision === 'allow' ? 'allow' : 'deny', {
        reason: decided.reason,
        updatedInput: decided.updatedInput,
      }),
    );
    return 0;
  }
  if (call.tool_name === 'AskUserQuestion') {
    ctx.out(hookOutput('defer'));
    return 0;
  }
  const gates = shopGates(ctx.env.SHOP_GATES);
  if (typeof gates === 'string') return deny(gates);
  if (holdingRule(gates, { tool: call.tool_name, input: call.tool_input }, place(ctx, call)))
    ctx.out(hookOutput('defer'));
  return 0;
}

type ToolCall = { tool_name: string; tool_input: Record<string, unknown>; tool_use_id?: string; cwd?: string };

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
  if (
    !call ||
    typeof call.tool_name !== 'string' ||
    typeof call.tool_input !== 'object' ||
    call.tool_input === null ||
    Array.isArray(call.tool_input)
  ) {
    return 'stdin is not a PreToolUse tool call (tool_name, tool_input)';
  }
  return call as ToolCall;
}

/** The gates Shop gave this session, as blocks; none without SHOP_GATES; why they cannot be read. */
function shopGates(text: string | undefined): GateBlock[] | string {
  if (!text) return [];
  if (text.length > GATES_CAP) return `SHOP_GATES is over ${GATES_CAP} bytes`;
  const value = parse<unknown>(text);
  if (value === null) return 'SHOP_GATES is not JSON';
  const blocks = readGates(value);
  return typeof blocks === 'string' ? `SHOP_GATES: ${blocks}` : blocks;
}

/**
 * Where the call's paths are: the workspace Shop started the session in (SHOP_WORKSPACE; the
 * agent cannot move it), relative paths from Claude Code's current directory (the input's cwd).
 */
function place(ctx: Context, call: ToolCall): GatePlace {
  const workspace = ctx.env.SHOP_WORKSPACE && isAbsolute(ctx.env.SHOP_WORKSPACE) ? ctx.env.SHOP_WORKSPACE : ctx.cwd;
  const cwd = typeof call.cwd === 'string' && isAbsolute(call.cwd) ? call.cwd : workspace;
  return { workspace, cwd, home: ctx.env.HOME, realPath };
}

/** The path with links resolved as far as it exists (the rest appended), or null. */
function realPath(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    if (parent === path) return null;
    const real = realPath(parent);
    return real === null ? null : join(real, basename(path));
  }
}

function deny(why: string): number {
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
