import type { AnswerInput } from '@shop/core/decisions/build-answer';
import type { EventJson, InboxRowJson, PendingJson, RunDetailJson, RunJson } from '@shop/core/operations/shapes';
import { html, type Html } from './html.js';

/**
 * The pages the server renders (packages/web/src/pages, by the pages helper). Until that
 * branch is merged these are bare stand-ins with the agreed signatures.
 */
export interface PageView {
  me: string | null;
  csrf: string;
  flash: { kind: 'ok' | 'error'; text: string } | null;
  now: number;
}
export interface Page {
  title: string;
  body: Html;
}
export interface AnsweredInfo {
  responder: string;
  channel: string;
  at: string;
}

const forms = (view: PageView, ask: PendingJson, action: string, nameField: boolean) => html`
<form method="post" action="${action}"><input type="hidden" name="handle" value="${ask.handle}"><input type="hidden" name="csrf" value="${view.csrf}">
${nameField ? html`<input name="by" placeholder="your name">` : ''}<input name="message">
<button name="verb" value="approve">Approve</button><button name="verb" value="reject">Reject</button></form>`;

export function layout(view: PageView, page: Page): Html {
  return html`<!doctype html><html><head><meta charset="utf-8"><title>${page.title}</title></head><body>
${view.flash ? html`<p class="flash ${view.flash.kind}">${view.flash.text}</p>` : ''}<main id="live">${page.body}</main></body></html>`;
}
export const inboxPage = (view: PageView, rows: InboxRowJson[]): Page => ({
  title: 'Inbox',
  body: html`${rows.map((r) => html`<article><p class="question">${r.question}</p>${forms(view, r, '/answer', false)}</article>`)}`,
});
export const runsPage = (_view: PageView, list: { rows: RunJson[]; total: number; status: string | null }): Page => ({
  title: 'Runs',
  body: html`${list.rows.map((r) => html`<p><a href="/runs/${r.id}">${r.id}</a> ${r.status} ${r.reason}</p>`)}`,
});
export const runPage = (view: PageView, d: RunDetailJson, events: EventJson[]): Page => ({
  title: `Run ${d.id}`,
  body: html`<p class="status">${d.status}</p><p class="reason">${d.reason}</p>${d.asks.map((a) => html`<p class="question">${a.question}</p>${forms(view, a, '/answer', false)}`)}
${d.executions.map((e) => html`<p>${e.key} ${e.status} ${JSON.stringify(e.result)}</p>`)}${events.map((e) => html`<p>${e.type}</p>`)}`,
});
export const askPage = (view: PageView, a: { ask: InboxRowJson | null; handle: string; answered: AnsweredInfo | null; action: string; nameField: boolean }): Page => ({
  title: `Ask ${a.handle}`,
  body: a.answered ? html`<p>answered by ${a.answered.responder} at ${a.answered.at}</p>` : a.ask ? html`<p class="question">${a.ask.question}</p>${forms(view, a.ask, a.action, a.nameField)}` : html`<p>closed</p>`,
});
export const loginPage = (_view: PageView, message: string | null): Page => ({ title: 'Sign in', body: html`<p>${message}</p><p>shop access add &lt;name&gt;</p>` });
export const errorPage = (_view: PageView, status: number, text: string): Page => ({ title: String(status), body: html`<h1>${status}</h1><p>${text}</p>` });

export function formAnswer(_ask: PendingJson, form: URLSearchParams): { ok: true; input: AnswerInput } | { ok: false; error: string } {
  const verdict = ({ approve: 'approved', reject: 'rejected', answer: 'answer' } as const)[form.get('verb') as 'approve'];
  if (!verdict) return { ok: false, error: 'unknown answer' };
  return { ok: true, input: { verdict, message: form.get('message') || null } };
}
