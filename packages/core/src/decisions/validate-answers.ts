import { z } from 'zod';
import type { ValidationIssue } from '../errors.js';
import type { DecisionAnswer } from '../types.js';
import type { Decision } from './decision-spec.js';

export type Validated = { ok: true; answers: Record<string, DecisionAnswer> } | { ok: false; issues: ValidationIssue[] };

/** The zod rule for one decision's value, with messages that say which rule was broken. */
export function valueSchema(d: Decision): z.ZodType {
  const c = d.constraints ?? {};
  const values = (d.options ?? []).map((o) => o.value);
  switch (d.type) {
    case 'approval':
      return z.boolean({ error: 'must be true or false' });
    case 'choice':
      return z.string({ error: `must be one of ${values.join(', ')}` }).refine((v) => values.includes(v), `must be one of ${values.join(', ')}`);
    case 'multi_choice': {
      let s = z.array(z.string(), { error: `must be a list drawn from ${values.join(', ')}` })
        .refine((v) => v.every((x) => values.includes(x)), `must be a list drawn from ${values.join(', ')}`)
        // Else ["web", "web"] would pass "choose at least 2" with one option.
        .refine((v) => new Set(v).size === v.length, 'must name each option at most once');
      if (c.min !== undefined) s = s.refine((v) => v.length >= c.min!, `choose at least ${c.min}`);
      if (c.max !== undefined) s = s.refine((v) => v.length <= c.max!, `choose at most ${c.max}`);
      return s;
    }
    case 'text': {
      let s = z.string({ error: 'must be text' });
      if (c.min !== undefined) s = s.min(c.min, `must be at least ${c.min} characters`);
      if (c.max !== undefined) s = s.max(c.max, `must be at most ${c.max} characters`);
      if (c.pattern !== undefined) s = s.regex(new RegExp(c.pattern), `must match /${c.pattern}/`);
      return s;
    }
    case 'number': {
      let s = z.number({ error: 'must be a number' });
      if (c.min !== undefined) s = s.min(c.min, `must be ≥ ${c.min}`);
      if (c.max !== undefined) s = s.max(c.max, `must be ≤ ${c.max}`);
      return s;
    }
    case 'date':
      return z.string({ error: 'must be an ISO 8601 date' })
        .refine((v) => /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) && !Number.isNaN(Date.parse(v)) && isCalendarDay(v.slice(0, 10)), 'must be an ISO 8601 date (YYYY-MM-DD or a date-time)');
  }
}

/** Date.parse rolls 2026-02-30 over to March 2; a real day reads back unchanged. */
function isCalendarDay(ymd: string): boolean {
  const day = new Date(`${ymd}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === ymd;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Checks a person's answers (keyed by decision id; a value or {value, comment}) against the
 * decisions: unknown ids, required ones missing (defaults fill in), and each type's rules.
 * Returns every problem, each naming its decision (its path).
 */
export function validateAnswers(decisions: Decision[], raw: unknown): Validated {
  if (!isPlainObject(raw)) return { ok: false, issues: [{ path: '', message: 'answers must be a JSON object keyed by decision id, e.g. {"d1": true}' }] };
  const issues: ValidationIssue[] = [];
  const ids = decisions.map((d) => d.id);
  for (const id of Object.keys(raw)) if (!ids.includes(id)) issues.push({ path: id, message: `no such decision (decisions: ${ids.join(', ')})` });
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
  const votes = decisions.filter((d) => d.type === 'approval' && typeof answers[d.id]?.value === 'boolean').map((d) => answers[d.id].value);
  if (votes.every((v) => v === true)) return 'all_approved';
  if (votes.every((v) => v === false)) return 'all_rejected';
  return 'partial';
}

/** "approve" on a structured pause: every approval decision true, the rest from their defaults. */
export function approveAll(decisions: Decision[]): Record<string, unknown> {
  return Object.fromEntries(decisions.filter((d) => d.type === 'approval').map((d) => [d.id, true]));
}
