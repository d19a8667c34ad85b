import type { CommandSpec, Group, Parsed } from './command-spec.js';
import { agentCommands } from './specs/agent.js';
import { answerCommands } from './specs/answering.js';
import { hookCommands } from './specs/hooks.js';
import { runCommands } from './specs/runs.js';
import { scheduleCommands } from './specs/schedules.js';
import { toolCommands } from './specs/tools.js';

/**
 * The CLI's command table, data only: each command's help and its flags, declared once (the
 * parser, the help and the handler's typed arguments all come from here). It imports no command:
 * handlers.ts loads each one, and a command imports its argument type from here. The
 * declarations themselves are in specs/, one file a group.
 */

export const GROUPS = {
  runs: 'Runs',
  answer: 'Answering (people in the loop)',
  tools: 'Workers and tools',
  agent: 'Agent side',
} as const satisfies Record<Group, string>;

/** Every command, in help's order (group by group); handlers.ts loads its module only when it is called, so startup stays fast. */
export const commands = {
  ...runCommands,
  ...scheduleCommands,
  ...answerCommands,
  ...toolCommands,
  ...hookCommands,
  ...agentCommands,
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof commands;
export type CommandOptions<N extends CommandName> = (typeof commands)[N]['options'];
/** What command N's handler gets: its positionals and its own flags, typed from its declaration above. */
export type CommandArgs<N extends CommandName> = Parsed<CommandOptions<N>>;
