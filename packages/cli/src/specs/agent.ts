import type { CommandSpec } from '../command-spec.js';

/** The agent side: gate, report. */
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
} as const satisfies Record<string, CommandSpec>;
