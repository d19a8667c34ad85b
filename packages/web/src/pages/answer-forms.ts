import type { PendingJson } from '@shop/core';
import { html, type Html } from '../html.js';
import { decisionFieldset, decisionsOf, formDecisions, MAX_MESSAGE } from './decision-inputs.js';

type Suggestion = PendingJson['suggestions'][number];

/** Where the forms post, and whether they ask for the person's name (an answer link has no login). */
export interface FormTarget {
  action: string;
  csrf: string;
  nameField: boolean;
  /** Where the server should send the person afterwards (the page they answered from); omitted on an answer link. */
  back?: string;
  /** A form the server refused: shown again as it was posted, with why (nothing typed is lost). */
  refused?: RefusedForm;
  /** The name this device answered with before (an answer link's remembered name), filled in. */
  name?: string | null;
}

export interface RefusedForm {
  posted: URLSearchParams;
  error: string;
}

/** The refusal for the form of `verb`, when that is the one posted. */
const refusedFor = (target: FormTarget, verb: string) =>
  target.refused?.posted.get('verb') === verb ? target.refused : undefined;

const problemsBox = (refused: RefusedForm | undefined) =>
  refused
    ? html`<p class="problems" role="alert">Not sent — please fix:
${refused.error}</p>`
    : html`<p class="problems" role="alert" hidden></p>`;

/**
 * Every way to answer one ask, as plain HTML forms that work with JavaScript off: approve,
 * reject (words required where the verdict matrix sends it back to the agent), answer with
 * text, and a pause's structured decisions. Built from the ask's suggestions (core's answer
 * hints), so the page offers exactly what `shop approve|reject|answer|signal` would take.
 */
export function answerForms(ask: PendingJson, target: FormTarget): Html {
  const formId = `f-${ask.handle.replace(/[^\w-]/g, '-')}`;
  const forms: Html[] = [];
  if (formDecisions(ask).length) forms.push(decideForm(ask, target, formId));
  for (const s of ask.suggestions) {
    if (s.verb === 'approve' || s.verb === 'reject' || s.verb === 'answer')
      forms.push(verbForm(ask, s, target, `${formId}-${s.verb}`));
  }
  // What only a terminal can do (a live session with the agent), named so a person knows it exists.
  // (Not on an answer link's page: whoever holds the link may have no terminal here.)
  const terminal = target.nameField ? undefined : ask.suggestions.find((s) => s.verb === 'continue');
  return html`<div class="answers">${forms}${terminal ? html`<p class="hint terminal">In a terminal: <code>shop continue ${terminal.handle}</code> (${terminal.label})</p>` : ''}</div>`;
}

/** The fields every answer form posts: which ask, the CSRF token, and (answer links) who answers. */
function common(ask: PendingJson, target: FormTarget, verb: string, formId: string): Html {
  const by = refusedFor(target, verb)?.posted.get('by') ?? target.name ?? '';
  return html`<input type="hidden" name="handle" value="${ask.handle}">
<input type="hidden" name="verb" value="${verb}">
<input type="hidden" name="csrf" value="${target.csrf}">
${target.back ? html`<input type="hidden" name="back" value="${target.back}">` : ''}
${
  target.nameField
    ? html`<label for="${formId}-by">Your name <span class="req">*</span></label>
<input type="text" id="${formId}-by" name="by" required maxlength="80" autocomplete="name"${by ? html` value="${by}"` : ''}>`
    : ''
}`;
}

const BUTTON: Record<string, string> = { approve: 'Approve', reject: 'Reject', answer: 'Send answer' };

function verbForm(ask: PendingJson, s: Suggestion, target: FormTarget, formId: string): Html {
  const required = s.needs_text === 'required';
  const words = s.needs_text !== 'none';
  const label =
    s.verb === 'answer' ? 'Your answer' : s.verb === 'reject' ? (ask.kind === 'pause' ? 'Why' : 'Feedback') : 'Message';
  // A pause's reject stops the run; an agent's may send it back to work.
  const button = s.verb === 'reject' && ask.kind === 'pause' ? 'Reject (stop it)' : BUTTON[s.verb];
  const refused = refusedFor(target, s.verb);
  const form = html`<form method="post" action="${target.action}" class="answer v-${s.verb}" id="${formId}">
${common(ask, target, s.verb, formId)}
${refused ? problemsBox(refused) : ''}
${
  words
    ? html`<label for="${formId}-m">${label}${required ? html` <span class="req">*</span>` : html` <span class="muted">(optional)</span>`}</label>
<textarea id="${formId}-m" name="message" rows="${s.verb === 'approve' ? 1 : 3}" maxlength="${MAX_MESSAGE}"${s.placeholder && s.placeholder !== '…' ? html` placeholder="${s.placeholder}"` : ''}${required ? html` required` : ''}>${refused?.posted.get('message') ?? ''}</textarea>`
    : ''
}
<p class="actions"><button type="submit" class="btn b-${s.verb}">${button}</button>${s.effect ? html` <span class="hint">${s.effect}</span>` : ''}</p>
</form>`;
  // Rejecting is the second choice: folded away (a click opens it, with or without JavaScript).
  return s.verb === 'reject'
    ? html`<details class="more v-reject" id="${formId}-more"${refused ? html` open` : ''}><summary>${button}…</summary>${form}</details>`
    : form;
}

function decideForm(ask: PendingJson, target: FormTarget, formId: string): Html {
  const refused = refusedFor(target, 'decide');
  return html`<form method="post" action="${target.action}" class="answer v-decide" id="${formId}-decide" data-check="decisions">
${common(ask, target, 'decide', `${formId}-decide`)}
${decisionsOf(ask).map((d) => decisionFieldset(d, `${formId}-decide`, refused?.posted))}
${problemsBox(refused)}
<label for="${formId}-decide-m">Message <span class="muted">(optional)</span></label>
<textarea id="${formId}-decide-m" name="message" rows="1" maxlength="${MAX_MESSAGE}">${refused?.posted.get('message') ?? ''}</textarea>
<p class="actions"><button type="submit" class="btn b-decide">Submit decisions</button></p>
</form>`;
}
