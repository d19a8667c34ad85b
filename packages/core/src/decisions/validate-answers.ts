import type { ValidationIssue } from '../errors.js';
import type { DecisionAnswer } from '../types.js';
import type { Decision } from './decision-spec.js';
import { valueSchema } from './decision-value.js';

export { valueSchema };

export type Validated =
  { ok: true; answers: Record<string, DecisionAnswer> } | { ok: false; issues: ValidationIssue[] };

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a person's answers (keyed by decision id; a value or {value, comment}) against the
 * decisions: unknown ids, required ones missing (defaults fill in), and each type's rules.
 * Returns every problem, each naming its decision (its path).
 */
export function validateAnswers(decisions: Decision[], raw: unknown): Validated {
  if (!isPlainObject(raw))
    return {
      ok: false,
      issues: [{ path: '', message: 'answers must be a JSON object keyed by decision id, e.g. {"d1": true}' }],
    };
  const issues: ValidationIssue[] = [];
  const ids = decisions.map((d) => d.id);
  for (const id of Object.keys(raw))
    if (!ids.includes(id)) issues.push({ path: id, message: `no such decision (decisions: ${ids.join(', ')})` });
  const answers: Record<string, DecisionAnswer> = {};
  for (const d of decisions) {
    const given = raw[d.id];
    const boxed = isPlainObject(given) && 'value' in given;
    const comment = boxed && typeof given.comment === 'string' ? given.comment : null;
    let value = boxed ? given.value : given;
    if (value === undefined || value === null) {
      if (d.default !== undefined && d.default !== null) value = d.default;
      else if (d.required) {
        issues.push({ path: d.id, message: `required (${d.type}: ${d.prompt})` });
        continue;
      } else {
        answers[d.id] = { value: null, comment };
        continue;
      }
    }
    const parsed = valueSchema(d).safeParse(value);
    if (!parsed.success) issues.push({ path: d.id, message: parsed.error.issues[0].message });
    else answers[d.id] = { value: parsed.data, comment };
  }
  return issues.length ? { ok: false, issues } : { ok: true, answers };
}

export type OverallStatus = 'all_approved' | 'partial' | 'all_rejected';

/** AAH's aggregate over the approval decisions (none → all_approved). */
export function overallStatus(decisions: Decision[], answers: Record<string, DecisionAnswer>): OverallStatus {
  const votes = decisions
    .filter((d) => d.type === 'approval' && typeof answers[d.id]?.value === 'boolean')
    .map((d) => answers[d.id].value);
  if (votes.every((v) => v === true)) return 'all_approved';
  if (votes.every((v) => v === false)) return 'all_rejected';
  return 'partial';
}

/** "approve" on a structured pause: every approval decision true, the rest from their defaults. */
export function approveAll(decisions: Decision[]): Record<string, unknown> {
  return Object.fromEntries(decisions.filter((d) => d.type === 'approval').map((d) => [d.id, true]));
}
