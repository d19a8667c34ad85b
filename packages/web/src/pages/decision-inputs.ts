import { ownDecisions } from '@shop/core';
import type { Decision, PendingJson } from '@shop/core';
import { html, type Html } from '../html.js';

/** Bounds the browser enforces first (the server checks them again in form-answer.ts). */
export const MAX_MESSAGE = 20_000;
export const MAX_COMMENT = 2_000;
export const MAX_VALUE = 10_000;

/** PendingJson carries each decision as the workflow declared it (options normalised by core). */
export const decisionsOf = (ask: Pick<PendingJson, 'decisions'>): Decision[] => ask.decisions as unknown as Decision[];

/**
 * The decisions a decide form submits: a pause's, or an agent ask's own (AskUserQuestion's
 * choices) — not the single one an agent's ask implies (answered by approve, reject, answer).
 */
export function formDecisions(ask: Pick<PendingJson, 'decisions' | 'kind'>): Decision[] {
  const decisions = decisionsOf(ask);
  return ask.kind === 'pause' || ownDecisions(decisions) ? decisions : [];
}

/** A decision with no default must be answered when it is required. */
const mustAnswer = (d: Decision) => d.required !== false && (d.default === undefined || d.default === null);

/** A choice with many options reads better as a list box than a column of radios. */
const MANY_OPTIONS = 6;

/**
 * One decision as a fieldset: the right input for its type, its constraints as HTML
 * validation attributes, its default pre-filled — or, after the server refused the form, what
 * was `typed` — and a comment box.
 */
export function decisionFieldset(d: Decision, formId: string, typed?: URLSearchParams): Html {
  const name = `d.${d.id}`;
  const id = `${formId}-${d.id}`;
  const c = d.constraints ?? {};
  const required = mustAnswer(d);
  const rules = constraintText(d);
  const given = typed ? { ...d, default: typedValue(d, typed) } : d;
  const comment = typed?.get(`c.${d.id}`) ?? '';
  return html`<fieldset class="decision t-${d.type}" data-prompt="${d.prompt}"${d.type === 'multi_choice' ? html` data-min="${c.min ?? ''}" data-max="${c.max ?? ''}"` : ''}>
<legend id="${id}-l">${d.prompt}${required ? html` <span class="req" title="required">*</span>` : d.required === false ? html` <span class="muted">(optional)</span>` : ''}</legend>
${d.description ? html`<p class="hint">${d.description}</p>` : ''}
${input(given, name, id, required)}
${rules ? html`<p class="hint rules">${rules}</p>` : ''}
<details class="comment" id="${id}-cd"${comment ? html` open` : ''}><summary>Add a comment</summary>
<label class="comment" for="${id}-c">Comment on “${d.prompt}”</label>
<input class="comment" type="text" id="${id}-c" name="c.${d.id}" maxlength="${MAX_COMMENT}" autocomplete="off"${comment ? html` value="${comment}"` : ''}>
</details>
</fieldset>`;
}

function input(d: Decision, name: string, id: string, required: boolean): Html {
  const c = d.constraints ?? {};
  const options = d.options ?? [];
  const req = required ? html` required` : '';
  switch (d.type) {
    case 'approval':
      return html`<div class="choices yes-no">
<label class="opt"><input type="radio" name="${name}" value="true"${req}${d.default === true ? html` checked` : ''}> Yes</label>
<label class="opt"><input type="radio" name="${name}" value="false"${req}${d.default === false ? html` checked` : ''}> No</label>
${noAnswer(d, name)}
</div>`;
    case 'choice':
      if (options.length >= MANY_OPTIONS) {
        return html`<select id="${id}" name="${name}" aria-labelledby="${id}-l"${req}>
<option value="">— choose —</option>
${options.map((o) => html`<option value="${o.value}"${d.default === o.value ? html` selected` : ''}>${o.label ?? o.value}${o.description ? ` — ${o.description}` : ''}</option>`)}
</select>`;
      }
      return html`<div class="choices">${options.map(
        (o) => html`
<label class="opt"><input type="radio" name="${name}" value="${o.value}"${req}${d.default === o.value ? html` checked` : ''}> ${o.label ?? o.value}${o.description ? html` <span class="hint">${o.description}</span>` : ''}</label>`,
      )}
${noAnswer(d, name)}
</div>`;
    case 'multi_choice': {
      const chosen = Array.isArray(d.default) ? (d.default as unknown[]) : [];
      return html`<div class="choices">${options.map(
        (o) => html`
<label class="opt"><input type="checkbox" name="${name}" value="${o.value}"${chosen.includes(o.value) ? html` checked` : ''}> ${o.label ?? o.value}${o.description ? html` <span class="hint">${o.description}</span>` : ''}</label>`,
      )}
</div>`;
    }
    case 'number':
      return html`<input type="number" id="${id}" name="${name}" aria-labelledby="${id}-l" step="any" inputmode="decimal"${c.min !== undefined ? html` min="${c.min}"` : ''}${c.max !== undefined ? html` max="${c.max}"` : ''}${typeof d.default === 'number' ? html` value="${d.default}"` : ''}${req}>`;
    case 'date': {
      const day = typeof d.default === 'string' ? d.default.slice(0, 10) : '';
      return html`<input type="date" id="${id}" name="${name}" aria-labelledby="${id}-l"${day ? html` value="${day}"` : ''}${req}>`;
    }
    case 'text': {
      const value = typeof d.default === 'string' ? d.default : '';
      const len = html`${c.min !== undefined ? html` minlength="${c.min}"` : ''} maxlength="${Math.min(c.max ?? MAX_VALUE, MAX_VALUE)}"`;
      // No pattern attribute: browsers compile it with other semantics (Chromium's v flag, where
      // the README's own ^[a-z-]+$ is invalid and silently ignored). The page's script checks
      // data-pattern as the server does, a JavaScript RegExp found anywhere in the text.
      if (c.pattern !== undefined)
        return html`<input type="text" id="${id}" name="${name}" aria-labelledby="${id}-l" data-pattern="${c.pattern}" title="${`must match /${c.pattern}/`}" value="${value}"${len}${req} autocomplete="off">`;
      return html`<textarea id="${id}" name="${name}" aria-labelledby="${id}-l" rows="3"${len}${req}>${value}</textarea>`;
    }
  }
}

/** What was typed for a decision, in the shape its input shows as a default (radios, boxes, fields). */
function typedValue(d: Decision, typed: URLSearchParams): unknown {
  const raw = typed.getAll(`d.${d.id}`);
  if (d.type === 'multi_choice') return raw;
  const v = raw[0] ?? '';
  // Nothing picked: no default either (an optional one shows its "No answer" picked).
  if (d.type === 'approval') return v === 'true' ? true : v === 'false' ? false : undefined;
  if (d.type === 'choice') return v || undefined;
  return d.type === 'number' && v !== '' && Number.isFinite(Number(v)) ? Number(v) : v;
}

/**
 * An optional decision's radios need a way back to "no answer" (a checked radio cannot be
 * unchecked). Not with a default: leaving it out gives the default, which its radio shows.
 */
function noAnswer(d: Decision, name: string): Html | '' {
  if (d.required !== false || (d.default !== undefined && d.default !== null)) return '';
  return html`<label class="opt none"><input type="radio" name="${name}" value="" checked> <span class="muted">No answer</span></label>`;
}

/** The rules a person should know before answering, in words. */
function constraintText(d: Decision): string {
  const c = d.constraints ?? {};
  const parts: string[] = [];
  if (d.type === 'number') {
    if (c.min !== undefined) parts.push(`at least ${c.min}`);
    if (c.max !== undefined) parts.push(`at most ${c.max}`);
  } else if (d.type === 'multi_choice') {
    if (c.min !== undefined) parts.push(`choose at least ${c.min}`);
    if (c.max !== undefined) parts.push(`choose at most ${c.max}`);
  } else if (d.type === 'text') {
    if (c.min !== undefined) parts.push(`at least ${c.min} characters`);
    if (c.max !== undefined) parts.push(`at most ${c.max} characters`);
    if (c.pattern !== undefined) parts.push(`must match /${c.pattern}/`);
  }
  return parts.join(', ');
}
