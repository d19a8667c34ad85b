import type { AgentDef } from '../agents/agent-def.js';
import type { CliName } from '../agents/dialects/dialect.js';
import { canonical } from '../lua/canonical-hash.js';
import type { AgentRules, RunRules } from '../types.js';

/** A run's rules before anything is known (a run recorded before schema 11, or a twin without files). */
export const noRules = (): RunRules => ({ agents: {}, config: null, files: {}, differs: [] });

/** The keys of an agent definition that are rules, as a run records them. */
const RULE_KEYS = ['cli', 'model', 'permission_mode', 'allowed_tools', 'command', 'gates'] as const;

/** An agent definition's rules (`file`: its path as shown), as a run records them. */
export function agentRules(def: AgentDef, file: string): AgentRules {
  return {
    file,
    cli: def.cli ?? null,
    model: def.model ?? null,
    permission_mode: def.permissionMode ?? null,
    allowed_tools: [...def.allowedTools],
    command: def.command ? [...def.command] : null,
    // Kept as the definition parsed them, whatever their form.
    gates: def.gates ?? null,
  };
}

/**
 * The agent a run's step gets: the definition read from its file now, with the rules the run
 * recorded laid over it. Its instructions, timeout and human stay the file's (a person's edit
 * of the instructions between steps is picked up, as before).
 */
export function layRules(def: AgentDef, rules: AgentRules): AgentDef {
  const { cli: _cli, command: _command, model: _model, permissionMode: _mode, gates: _gates, ...rest } = def;
  return {
    ...rest,
    allowedTools: [...rules.allowed_tools],
    ...(rules.model !== null ? { model: rules.model } : {}),
    ...(rules.permission_mode !== null ? { permissionMode: rules.permission_mode } : {}),
    ...(rules.command !== null ? { command: [...rules.command] } : {}),
    ...(rules.cli !== null ? { cli: rules.cli as CliName } : {}),
    ...(rules.gates != null ? { gates: rules.gates as AgentDef['gates'] } : {}),
  };
}

/** Which rules of an agent its file now says otherwise than the run recorded ("model", "gates"). */
export function agentRulesDiffer(recorded: AgentRules, now: AgentRules): string[] {
  return RULE_KEYS.filter((k) => canonical(recorded[k]) !== canonical(now[k]));
}

/** Which config{} keys the workflow file now sets otherwise than the run recorded ("config.gates"). */
export function configDiffers(recorded: Record<string, unknown>, now: Record<string, unknown>): string[] {
  const keys = [...new Set([...Object.keys(recorded), ...Object.keys(now)])].sort();
  return keys.filter((k) => canonical(recorded[k]) !== canonical(now[k])).map((k) => `config.${k}`);
}

/** The files of two looks that differ: changed, added (before null) or removed (after null). */
export function lookDiff(
  before: ReadonlyMap<string, string>,
  after: ReadonlyMap<string, string>,
): { path: string; before: string | null; after: string | null }[] {
  if (sameLook(before, after)) return [];
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  return paths
    .filter((p) => before.get(p) !== after.get(p))
    .map((p) => ({ path: p, before: before.get(p) ?? null, after: after.get(p) ?? null }));
}

/** Whether two looks name the same files with the same hashes (the hot path: no change). */
export function sameLook(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [path, hash] of a) if (b.get(path) !== hash) return false;
  return true;
}
