import { claimVerb } from '@shop/core';
import type { InboxRowJson, PendingJson } from '@shop/core';
import { html, type Html } from '../html.js';
import { answerForms } from './answer-forms.js';
import { ago, badge, clip, when } from './format.js';
import type { PageView } from './layout.js';

/** What the run page knows beyond the ask itself: a pause's context and deadline. */
export interface AskMore {
  context?: string | null;
  /** When it must be answered by (ISO 8601). */
  deadline?: string | null;
}

/** Where the inbox and run pages post answers (an answer link posts to its own /a/<token>). */
export const ANSWER_ACTION = '/answer';
export const CLAIM_ACTION = '/claim';

export type Claim = { by: string; since: string; until?: string } | null;

/** The claims work adds `claimed_by` to the inbox rows; read it without depending on it. */
export const claimOf = (row: PendingJson): Claim => (row as { claimed_by?: Claim }).claimed_by ?? null;

/** What the ask is waiting for, in a word: the agent's `awaiting` kind, or "pause" / "decisions". */
export function askKind(ask: PendingJson): string {
  if (ask.kind === 'pause') return ask.decisions.length ? 'decisions' : 'pause';
  return ask.awaiting ?? 'input';
}

/** Who asks: the agent, or the workflow itself (a pause). */
export const asker = (ask: PendingJson): Html =>
  ask.kind === 'run' && ask.agent ? html`<span>agent <b>${ask.agent}</b></span>` : html`<span>the workflow asks</span>`;

/** The question as the workflow or agent put it, kept as text (pre-wrapped, never markup). */
export const question = (ask: PendingJson): Html =>
  html`<p class="question">${clip(ask.question, 4000) || (ask.kind === 'pause' ? 'The workflow paused for a person.' : 'The agent needs a person.')}</p>`;

/**
 * One open ask with everything needed to act on it where it stands: the question, who asks,
 * since when, who is on it, a claim button and the answer forms. `back` is where the server
 * sends the person after a form post (no Referer is sent: Referrer-Policy no-referrer).
 */
export function askCard(view: PageView, ask: PendingJson | InboxRowJson, back: string, more: AskMore = {}): Html {
  const run = 'run' in ask ? ask : null;
  const claim = claimOf(ask);
  const mine = claimVerb(claim, view.me) === 'release';
  return html`<article class="ask card" id="ask-${ask.handle}" data-handle="${ask.handle}">
<header class="ask-head">
  <span class="kind k-${askKind(ask)}">${askKind(ask)}</span>
  ${run ? html`<a class="run-link" href="/runs/${run.run}">run ${run.run}</a> <span class="spec">${run.spec}</span> ${badge(run.run_status)}` : ''}
  <span class="handle" title="the ask's handle: shop approve ${ask.handle}">${ask.handle}</span>
</header>
${question(ask)}
${more.context ? html`<p class="context">${clip(more.context, 4000)}</p>` : ''}
<p class="meta">
  ${asker(ask)}
  <span>waiting since ${when(ask.waiting_since, view.now)}</span>
  ${more.deadline ? html`<span class="deadline">answer by ${when(more.deadline, view.now)}</span>` : ''}
  ${claim ? html`<span class="claimed${mine ? ' mine' : ''}">claimed by <b>${claim.by}</b> ${ago(claim.since, view.now)}${claim.until ? ` (ages out ${ago(claim.until, view.now)})` : ''}</span>` : html`<span class="unclaimed">nobody is on it</span>`}
</p>
<form method="post" action="${CLAIM_ACTION}" class="claim">
<input type="hidden" name="handle" value="${ask.handle}">
<input type="hidden" name="csrf" value="${view.csrf}">
<input type="hidden" name="back" value="${back}">
${mine ? html`<input type="hidden" name="release" value="1"><button type="submit" class="btn b-release">Release</button>` : html`<button type="submit" class="btn b-claim">${claim ? `Take over from ${claim.by}` : "Claim — I'm on it"}</button>`}
</form>
${answerForms(ask, { action: ANSWER_ACTION, csrf: view.csrf, nameField: false, back })}
</article>`;
}
