import type { AgentDef } from '../agent-def.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { command } from './command.js';
import type { AgentDialect, CliName } from './dialect.js';
import { gemini } from './gemini.js';

const DIALECTS: Record<CliName, AgentDialect> = { claude, codex, gemini };

/** An agent CLI's dialect, by name (its words for people: label, short). */
export const cliDialect = (cli: CliName): AgentDialect => DIALECTS[cli];

/** The dialect an agent speaks: its `command:` template, else its `cli:` (Claude Code by default). */
export function dialectOf(agent: Pick<AgentDef, 'cli' | 'command'>): AgentDialect {
  return agent.command ? command : DIALECTS[agent.cli ?? 'claude'];
}
