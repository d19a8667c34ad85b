import { validateAnswers, valueSchema } from '@shop/core';
import type { AnswerInput, Decision } from '@shop/core';

/** A decision being answered: typed text, a yes/no, or a picked option. */
export interface Field {
  decision: Decision;
  text: string;
  /** approval: true/false, null when not given. choice: the option's value, or null. */
  picked: boolean | string | null;
}

/** What a plain pause asks when it has no decisions of its own. */
export const PLAIN: Decision = { id: 'continue', type: 'approval', prompt: 'Continue?', required: true };

export const isTyped = (d: Decision) =>
  d.type === 'text' || d.type === 'number' || d.type === 'date' || d.type === 'multi_choice';

/** Fields pre-filled with the defaults; `approving` says yes to every approval. */
export function initialFields(decisions: Decision[], approving: boolean): Field[] {
  return decisions.map((decision) => {
    const dflt = decision.default;
    const text =
      dflt === undefined || dflt === null || !isTyped(decision)
        ? ''
        : Array.isArray(dflt)
          ? dflt.join(', ')
          : String(dflt);
    const picked =
      decision.type === 'approval'
        ? approving
          ? true
          : typeof dflt === 'boolean'
            ? dflt
            : null
        : decision.type === 'choice' && typeof dflt === 'string'
          ? dflt
          : null;
    return { decision, text, picked };
  });
}

/** The value a field gives, as `validateAnswers` takes it (undefined: not given). */
export function fieldValue(f: Field): unknown {
  const t = f.text.trim();
  switch (f.decision.type) {
    case 'approval':
    case 'choice':
      return f.picked ?? undefined;
    case 'number':
      return t === '' ? undefined : Number.isFinite(Number(t)) ? Number(t) : t;
    case 'multi_choice':
      return t === ''
        ? undefined
        : t
            .split(',')
            .map((s) => s.trim())
            .filter(Boolean);
    default:
      return t === '' ? undefined : f.decision.type === 'text' ? f.text : t;
  }
}

/** The rule one field breaks, if any (required, or its type's rule), in the core's words. */
export function fieldProblem(f: Field): string | null {
  const v = fieldValue(f);
  if (v === undefined) return f.decision.required && (f.decision.default ?? null) === null ? 'required' : null;
  const parsed = valueSchema(f.decision).safeParse(v);
  return parsed.success ? null : parsed.error.issues[0].message;
}

/** Every field's problem by decision id, as the core checks the whole answer. */
export function formProblems(fields: Field[]): Record<string, string> {
  const raw = Object.fromEntries(fields.map((f) => [f.decision.id, fieldValue(f)]).filter(([, v]) => v !== undefined));
  const checked = validateAnswers(
    fields.map((f) => f.decision),
    raw,
  );
  if (checked.ok) return {};
  return Object.fromEntries(checked.issues.map((i) => [i.path, i.message]));
}

/** The answer the form gives: decisions for a structured pause, continue/stop for a plain one. */
export function formAnswer(fields: Field[], note: string, plain: boolean): AnswerInput {
  const message = note.trim() || null;
  if (plain) return { verdict: fields[0].picked === false ? 'rejected' : 'approved', message };
  return {
    answers: Object.fromEntries(fields.map((f) => [f.decision.id, fieldValue(f)]).filter(([, v]) => v !== undefined)),
    message,
  };
}

/** The next option of a choice, or the flipped yes/no of an approval. */
export function cycle(f: Field, step: 1 | -1): Field {
  if (f.decision.type === 'approval') return { ...f, picked: f.picked === null ? step === 1 : !f.picked };
  const values = (f.decision.options ?? []).map((o) => o.value);
  if (f.decision.type !== 'choice' || !values.length) return f;
  const at = f.picked === null ? (step === 1 ? -1 : 0) : values.indexOf(String(f.picked));
  return { ...f, picked: values[(at + step + values.length) % values.length] };
}
