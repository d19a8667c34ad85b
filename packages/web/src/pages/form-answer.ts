import { takesVerdict } from '@shop/core';
import type { AnswerInput, Decision, PendingJson } from '@shop/core';
import { formDecisions, MAX_COMMENT, MAX_MESSAGE, MAX_VALUE } from './decision-inputs.js';

export type FormAnswer = { ok: true; input: AnswerInput } | { ok: false; error: string };

const VERDICTS = { approve: 'approved', reject: 'rejected', answer: 'answer' } as const;

/**
 * A posted answer form (answer-forms.ts) as the AnswerInput core checks: the verb picks the
 * verdict, `d.<id>` fields become typed values (numbers parsed, multi_choice lists, approval
 * booleans), `c.<id>` comments wrap them as {value, comment}, and empty optional fields are
 * left out so defaults apply. Lengths are bounded here; the decision rules are core's
 * (buildAnswer), which the server calls next — this only refuses what cannot be typed.
 */
export function formAnswer(ask: PendingJson, form: URLSearchParams): FormAnswer {
  const verb = form.get('verb') ?? '';
  const message = text(form.get('message'));
  if (message && message.length > MAX_MESSAGE)
    return fail(`the message is too long (${message.length} characters; at most ${MAX_MESSAGE})`);
  if (verb === 'decide') return decide(ask, form, message);
  if (!(verb in VERDICTS)) return fail(`unknown answer "${verb.slice(0, 40)}": use approve, reject, answer or decide`);
  if (!takesVerdict(ask, verb)) return fail('a pause takes approve, reject or its decisions, not a free answer');
  const offered = ask.suggestions.find((s) => s.verb === verb);
  if (offered?.needs_text === 'required' && !message) {
    return fail(
      verb === 'answer'
        ? 'write your answer first'
        : `${offered.label} needs words: ${offered.placeholder === '…' ? 'say what the agent should know' : offered.placeholder}`,
    );
  }
  return { ok: true, input: { verdict: VERDICTS[verb as keyof typeof VERDICTS], message } };
}

function decide(ask: PendingJson, form: URLSearchParams, message: string | null): FormAnswer {
  const decisions = formDecisions(ask);
  if (!decisions.length) return fail('this ask has no decisions to submit: approve, reject or answer it');
  const known = new Set(decisions.map((d) => d.id));
  for (const key of form.keys()) {
    const id = /^[dc]\.(.*)$/.exec(key)?.[1];
    if (id !== undefined && !known.has(id))
      return fail(`${id.slice(0, 40)}: no such decision (decisions: ${[...known].join(', ')})`);
  }
  const answers: Record<string, unknown> = {};
  for (const d of decisions) {
    const value = typed(d, form);
    if (typeof value === 'object' && value !== null && 'error' in value)
      return fail(`${d.id} (${d.prompt}): ${value.error}`);
    const comment = text(form.get(`c.${d.id}`));
    if (comment && comment.length > MAX_COMMENT)
      return fail(`${d.id}: the comment is too long (at most ${MAX_COMMENT} characters)`);
    if (comment) answers[d.id] = { value: value ?? null, comment };
    else if (value !== undefined) answers[d.id] = value;
  }
  return { ok: true, input: { answers, message } };
}

type Typed = string | number | boolean | string[] | undefined | { error: string };

/** One decision's posted value in its type; undefined = not given (a default or "required" follows). */
function typed(d: Decision, form: URLSearchParams): Typed {
  const name = `d.${d.id}`;
  if (d.type === 'multi_choice') {
    // Ticking no box is an answer (none of them); the core checks it against min.
    const all = form.getAll(name).filter((v) => v !== '');
    if (all.length > (d.options?.length ?? 0)) return { error: 'more choices than there are options' };
    return all;
  }
  const raw = form.getAll(name);
  if (raw.length > 1) return { error: 'give one value' };
  const v = raw[0]?.trim();
  if (v === undefined || v === '') return undefined;
  if (v.length > MAX_VALUE) return { error: `too long (at most ${MAX_VALUE} characters)` };
  switch (d.type) {
    case 'approval':
      if (v === 'true' || v === 'yes') return true;
      if (v === 'false' || v === 'no') return false;
      return { error: 'answer yes or no' };
    case 'number': {
      const n = Number(v);
      return Number.isFinite(n) ? n : { error: `"${v.slice(0, 40)}" is not a number` };
    }
    default:
      // choice, text, date: strings the core checks against options, length, pattern, calendar.
      return v;
  }
}

/** A field's text, null when absent or blank. */
const text = (v: string | null): string | null => (v?.trim() ? v.trim() : null);

const fail = (error: string): FormAnswer => ({ ok: false, error });
