import { canonical, changedFiles, describeGates, heldStep } from '@shop/core';
import type { HeldJson, RulesJson } from '@shop/core';

/** A list in one line: strings as they are, anything else as compact JSON. */
const listed = (v: unknown): string =>
  Array.isArray(v) ? v.map((x) => (typeof x === 'string' ? x : canonical(x))).join(', ') : canonical(v);
/** Gates as a person writes them (describeGates), else as any list. */
const gatesText = (v: unknown): string => describeGates(v) ?? listed(v);

/**
 * shop status: the rules the run obeys, fixed when it started — one line per agent (its CLI,
 * model, permissions, tools, gates), one for its workflow's config{} — and what the files say
 * otherwise now, which the run does not follow until a person takes it.
 */
export function rulesLines(runId: number, rules: RulesJson | null): string[] {
  if (!rules) return [];
  const names = Object.keys(rules.agents).sort();
  const width = Math.max(8, ...names.map((n) => n.length));
  const lines = ["Rules (fixed when it started; its agents' instructions stay their files'):"];
  for (const name of names) {
    const r = rules.agents[name]!;
    const parts = [r.command ? `command ${listed(r.command)}` : (r.cli ?? 'claude')];
    if (r.model) parts.push(`model ${r.model}`);
    if (r.permission_mode) parts.push(`permission ${r.permission_mode}`);
    if (r.allowed_tools.length) parts.push(`tools ${listed(r.allowed_tools)}`);
    if (r.gates != null) parts.push(`gates ${gatesText(r.gates)}`);
    lines.push(`  ${name.padEnd(width)}  ${parts.join('   ')}`);
  }
  const config =
    rules.config === null
      ? 'not yet loaded'
      : Object.keys(rules.config).length
        ? Object.keys(rules.config)
            .sort()
            .map((k) => `${k} ${k === 'gates' ? gatesText(rules.config![k]) : listed(rules.config![k])}`)
            .join('; ')
        : '(none)';
  lines.push(`  ${'config{}'.padEnd(width)}  ${config}`);
  if (rules.differs.length)
    lines.push(
      `  The files now say otherwise (not followed): ${rules.differs.join('; ')}; to take them: shop resume ${runId} --accept-changes`,
    );
  return lines;
}

/** shop status of a held run: what changed during which step, and the way on. */
export function heldLines(runId: number, held: HeldJson | null): string[] {
  if (!held) return [];
  return [
    `Held: ${changedFiles(held.files)} changed ${held.interrupted ? 'while' : 'during'} ${heldStep(runId, held)}`,
    `  Check the change, then: shop resume ${runId} --accept-changes (or restore ${held.files.length === 1 ? 'the file' : 'the files'} and: shop resume ${runId})`,
  ];
}
