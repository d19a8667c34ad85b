import type { CommandSpec } from '../command-spec.js';

/** The agent side: gate, report, mcp. */
export const agentCommands = {
  gate: {
    usage: 'shop gate',
    summary: "decide a tool call an agent is about to make (Claude Code's PreToolUse hook, set by Shop)",
    details: `Shop passes it to the Claude Code sessions it starts (--settings), for agents with gates:. It reads the
tool call on stdin and prints Claude Code's hook decision: defer for a gated call or AskUserQuestion
(the step then waits for a person), the person's decision when the session resumes, nothing otherwise.`,
    group: 'agent',
    maxArgs: 0,
    needsProject: false,
    options: {},
  },
  report: {
    usage: 'shop report <STATUS> [--summary S] [--reason R] [--awaiting KIND] [--field k=v …]',
    summary: "write this step's signal (run by an agent, inside its step)",
    group: 'agent',
    maxArgs: 1,
    needsProject: false,
    options: {
      summary: { type: 'string', value: 'S', description: 'what was done (the workflow reads it as .summary)' },
      reason: { type: 'string', value: 'R', description: 'why; for NEEDS_HUMAN, the question for the person' },
      awaiting: {
        type: 'string',
        value: 'KIND',
        description: 'what a NEEDS_HUMAN awaits: input, approval, review, content, escalation, checkpoint, work',
      },
      field: {
        type: 'string',
        multiple: true,
        value: 'k=v',
        description: 'any other field for the workflow (repeatable)',
      },
    },
  },
  mcp: {
    usage: 'shop mcp',
    summary:
      "Shop's MCP server for an agent's CLI (stdio): its report and ask tools (started by the CLI, set up by Shop)",
    details: `Shop configures it for every agent session it starts (Claude Code --mcp-config, Codex -c mcp_servers.shop.*,
Gemini CLI's settings): the agent then reports with the tool report (status, summary, reason, awaiting,
fields: the same signal as shop report, checked the same way) and asks a person with ask (a question,
optional choices; the step waits for the answer). It serves only the step whose environment it started
with (SHOP_SIGNAL_FILE): a report that is not that attempt's is refused. No other tools, no resources.`,
    group: 'agent',
    maxArgs: 0,
    needsProject: false,
    options: {},
  },
} as const satisfies Record<string, CommandSpec>;
