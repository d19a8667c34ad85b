import type { InboxRowJson } from '@shop/core/operations/shapes';
import type { Answer } from '@shop/core/types';
import { answeredText, answerPosted, typedName } from './answer-form.js';
import { clearCookie, SESSION_COOKIE, sessionCookie } from './cookies.js';
import { html } from './html.js';
import { readForm, sendHtml } from './http-io.js';
import { askPage, errorPage, layout, loginPage } from './page-set.js';
import { flashTo, pageView, renderPage, type Ctx } from './request-context.js';

const LINK_SESSION = (token: string) => `link:${token}`;

/**
 * GET /login/<token>: a personal login link. The cookie holds the token itself (checked
 * against the store on every request, so revoking a person ends their session at once). The
 * page then moves on to / by a same-origin meta refresh: after a navigation from another site
 * (a mail, a chat) a 303 would not carry a SameSite=Strict cookie on its next request.
 */
export async function loginRoute(c: Ctx, [token]: string[]) {
  const person = token.length <= 200 ? await c.deps.ops.personByToken(token) : null;
  const view = { ...pageView(c), me: person?.name ?? null };
  if (!person) {
    renderPage(c, view, loginPage(view, 'This login link is not valid: it was revoked or mistyped. Ask for a new one.'), 401);
    return;
  }
  const page = { title: 'Signed in', body: html`<p>Signed in as <b>${person.name}</b>. <a href="/">Go to the inbox</a>.</p>` };
  const doc = String(layout(view, page)).replace('<head>', '<head>\n<meta http-equiv="refresh" content="0; url=/">');
  sendHtml(c.res, 200, doc, { 'Set-Cookie': [...c.setCookies, sessionCookie(token, c.secure)] });
}

/** POST /logout: forgets the session cookie in this browser. */
export async function logoutRoute(c: Ctx) {
  const form = await readForm(c.req);
  c.csrf.check(c.session!.token, form.get('csrf'));
  c.setCookies.push(clearCookie(SESSION_COOKIE, c.secure));
  flashTo(c, '/', 'ok', 'Signed out');
}

function answeredInfo(a: Answer | null) {
  return a ? { responder: a.responder, channel: a.channel, at: new Date(a.answeredAt).toISOString(), verdict: a.verdict, status: a.status } : null;
}

/**
 * GET /a/<token>: the page of one ask, answerable without signing in. Forged → 400,
 * expired → 410 (the error says so); answered already → the page says who answered and when.
 */
export async function linkRoute(c: Ctx, [token]: string[]) {
  const link = await c.deps.ops.verifyAnswerLink(token);
  const answer = await c.deps.ops.answerOf(link.runId, link.key, link.ask);
  let ask: InboxRowJson | null = null;
  if (!answer) {
    const detail = await c.deps.ops.runDetail(link.runId, { last: 0 });
    const open = detail.asks.find((a) => a.handle === link.handle);
    if (open) ask = { ...open, run: detail.id, spec: detail.spec, run_status: detail.status };
  }
  const view = pageView(c, c.session?.token ?? LINK_SESSION(token));
  const page = askPage(view, { ask, handle: link.handle, answered: answeredInfo(answer), action: `/a/${token}`, nameField: !c.session });
  renderPage(c, view, page);
}

/** POST /a/<token>: the answer; the responder is the signed-in person, else the name typed. */
export async function linkAnswerRoute(c: Ctx, [token]: string[]) {
  const link = await c.deps.ops.verifyAnswerLink(token);
  const form = await readForm(c.req);
  c.csrf.check(c.session?.token ?? LINK_SESSION(token), form.get('csrf'));
  const responder = c.session?.name ?? typedName(form.get('by'));
  const answered = await answerPosted(c.deps, link.handle, form, 'link', responder);
  flashTo(c, `/a/${token}`, 'ok', answeredText(answered));
}

export function errorResponse(c: Ctx, status: number, text: string) {
  const view = pageView(c);
  const page = status === 401 ? loginPage(view, text) : errorPage(view, status, text);
  renderPage(c, view, page, status);
}
