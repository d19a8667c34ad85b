import { claudeReader } from './claude.js';
import type { AgentDialect, DialectStep } from './dialect.js';

/**
 * An agent's own `command:` template ({prompt}, {session_id}, {system_prompt}, {model}, {cwd}
 * filled in). Its output is read as Claude Code's stream-json when it prints that, else as
 * plain text (the `<promise>` fallback); it has no session a person could be handed.
 */
export const command: AgentDialect = {
  cli: 'command',
  label: 'command',
  short: 'command',
  names: 'shop',
  argv(step: DialectStep) {
    const vars: Record<string, string> = {
      prompt: step.prompt,
      session_id: step.sessionId ?? '',
      system_prompt: step.system,
      model: step.model ?? step.agent.model ?? '',
      cwd: step.cwd,
    };
    return step.agent.command!.map((part) => part.replace(/\{(\w+)\}/g, (all, name: string) => vars[name] ?? all));
  },
  reader: claudeReader,
  handOff: () => null,
  movesSessions: false,
};
