import * as z from 'zod';

/** A structured pause's decisions (AAH decision/request): what the workflow asks. */
export const DECISION_TYPES = ['approval', 'choice', 'multi_choice', 'text', 'number', 'date'] as const;

/**
 * What a decision's value is checked against: its type, options and constraints. decision-spec.ts's
 * Decision has these fields; they are named here so checking a default there needs no import back.
 */
export interface DecisionRules {
  type: (typeof DECISION_TYPES)[number];
  options?: { value: string }[];
  constraints?: { min?: number; max?: number; pattern?: string };
}

/** The zod rule for one decision's value, with messages that say which rule was broken. */
export function valueSchema(d: DecisionRules): z.ZodType {
  const c = d.constraints ?? {};
  const values = (d.options ?? []).map((o) => o.value);
  switch (d.type) {
    case 'approval':
      return z.boolean({ error: 'must be true or false' });
    case 'choice':
      return z
        .string({ error: `must be one of ${values.join(', ')}` })
        .refine((v) => values.includes(v), `must be one of ${values.join(', ')}`);
    case 'multi_choice': {
      let s = z
        .array(z.string(), { error: `must be a list drawn from ${values.join(', ')}` })
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
      return z
        .string({ error: 'must be an ISO 8601 date' })
        .refine(
          (v) =>
            /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) &&
            !Number.isNaN(Date.parse(v)) &&
            isCalendarDay(v.slice(0, 10)),
          'must be an ISO 8601 date (YYYY-MM-DD or a date-time)',
        );
  }
}

/** Date.parse rolls 2026-02-30 over to March 2; a real day reads back unchanged. */
function isCalendarDay(ymd: string): boolean {
  const day = new Date(`${ymd}T00:00:00Z`);
  return !Number.isNaN(day.getTime()) && day.toISOString().slice(0, 10) === ymd;
}
