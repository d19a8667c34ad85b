import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { NotFoundError, UsageError } from '../errors.js';
import { describeIssues } from '../lua/issues.js';
import { agentNameProblem } from './agent-name.js';
import { CLI_NAMES, type CliName } from './dialects/cli-names.js';
import type { GateBlock } from './gate-spec.js';
import { GatesSchema } from './gates-schema.js';

const PermissionMode = lazySchema(() =>
  z.enum(['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto']),
);
const ToolList = lazySchema(() => z.union([z.array(z.string()), z.string()]));

/**
 * Front matter of agents/<name>.md. Strict, so a typo is named; it also accepts the keys of
 * Claude Code's own subagent files, since .claude/agents/ is read too (those Shop does not
 * use are accepted and left to Claude Code).
 */
const AgentFrontMatterSchema = lazySchema(() =>
  z.strictObject({
    name: z.string().optional(),
    description: z.string().optional(),
    model: z.string().optional(),
    permission_mode: PermissionMode.optional(),
    allowed_tools: ToolList.optional(),
    timeout: z.number().positive().optional(),
    human: z.boolean().optional(),
    command: z.array(z.string()).min(1).optional(),
    cli: z.enum(CLI_NAMES).optional(),
    gates: GatesSchema.optional(),
    ask_user_question: z.boolean().optional(),
    // Claude Code subagent keys.
    tools: ToolList.optional(),
    permissionMode: PermissionMode.optional(),
    disallowedTools: ToolList.optional(),
    color: z.string().optional(),
    maxTurns: z.number().int().positive().optional(),
    skills: z.unknown().optional(),
    mcpServers: z.unknown().optional(),
    hooks: z.unknown().optional(),
    memory: z.unknown().optional(),
  }),
);

export interface AgentDef {
  name: string;
  file: string;
  instructions: string;
  model?: string;
  permissionMode?: string;
  allowedTools: string[];
  /** Seconds. */
  timeout?: number;
  human?: boolean;
  command?: string[];
  /** The agent CLI it runs (front matter `cli:`): Claude Code when absent. */
  cli?: CliName;
  /**
   * Tool calls that wait for a person (`Bash(git push --force*)`, `AskUserQuestion`, or a
   * hold-by-default block `{ hold, allow }`), read into blocks: Claude Code only.
   */
  gates?: GateBlock[];
  /**
   * Whether a Claude Code agent's questions (AskUserQuestion) wait for a person: on unless its
   * front matter says `ask_user_question: false` (false only then).
   */
  askUserQuestion?: boolean;
}

/** Agent folders in lookup order. */
export function agentDirs(projectRoot: string): string[] {
  return [join(projectRoot, 'agents'), join(projectRoot, '.claude', 'agents')];
}

export function listAgents(projectRoot: string): string[] {
  const names = new Set<string>();
  for (const dir of agentDirs(projectRoot)) {
    if (!existsSync(dir)) continue;
    for (const f of readdirSync(dir)) if (f.endsWith('.md')) names.add(basename(f, '.md'));
  }
  return [...names].sort();
}

export function loadAgent(projectRoot: string, name: string): AgentDef {
  // Names are checked where run() is called; this keeps any other path (a name from the store) inside agents/.
  const problem = agentNameProblem(name);
  if (problem) throw new UsageError(problem);
  const file = agentDirs(projectRoot)
    .map((d) => join(d, `${name}.md`))
    .find((f) => existsSync(f));
  if (!file) {
    const found = listAgents(projectRoot);
    throw new NotFoundError(
      `unknown agent "${name}": no agents/${name}.md or .claude/agents/${name}.md` +
        (found.length ? ` (found: ${found.join(', ')})` : ' (no agents defined; add agents/<name>.md)'),
    );
  }
  return parseAgent(name, file, readFileSync(file, 'utf8'));
}

export function parseAgent(name: string, file: string, text: string): AgentDef {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?([\s\S]*)$/.exec(text);
  let meta: unknown = {};
  if (m) {
    try {
      meta = parseYaml(m[1]) ?? {};
    } catch (e) {
      throw new UsageError(`${file}: front matter is not valid YAML (${(e as Error).message.split('\n')[0]})`);
    }
  }
  const parsed = AgentFrontMatterSchema.safeParse(meta);
  if (!parsed.success) throw new UsageError(`${file}: ${describeIssues(parsed.error)}`);
  const fm = parsed.data;
  if (fm.cli && fm.command)
    throw new UsageError(`${file}: give either cli: (${fm.cli}) or command:, not both — command: runs its own program`);
  if (fm.gates?.length && ((fm.cli && fm.cli !== 'claude') || fm.command)) {
    throw new UsageError(
      `${file}: gates: needs Claude Code (cli: claude): ${fm.command ? 'a command:' : fm.cli === 'codex' ? 'Codex' : 'Gemini CLI'} cannot suspend a tool call for a person`,
    );
  }
  const tools = fm.allowed_tools ?? fm.tools ?? [];
  return {
    name,
    file,
    instructions: (m ? m[2] : text).trim(),
    model: fm.model,
    permissionMode: fm.permission_mode ?? fm.permissionMode,
    allowedTools:
      typeof tools === 'string'
        ? tools
            .split(',')
            .map((t) => t.trim())
            .filter(Boolean)
        : tools,
    timeout: fm.timeout,
    human: fm.human,
    command: fm.command,
    ...(fm.cli ? { cli: fm.cli } : {}),
    ...(fm.gates?.length ? { gates: fm.gates } : {}),
    ...(fm.ask_user_question === false ? { askUserQuestion: false } : {}),
  };
}
