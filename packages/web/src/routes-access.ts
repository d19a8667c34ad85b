import { UsageError } from '@shop/core';
import type { Answer } from '@shop/core';
import { answeredText, answerPosted, openAskRow, typedName } from './answer-form.js';
import { answererCookie, clearCookie, readAnswerer, sessionCookie } from './cookies.js';
import { webErrorText } from './http-errors.js';
import { readForm } from './http-io.js';
import { askPage, errorPage, loginConfirmPage, loginPage } from './page-set.js';
import { flashTo, pageView, renderPage, type Ctx } from './request-context.js';

const LINK_SESSION = (token: string) => `link:${token}`;

const INVALID_LOGIN = 'This login link is not valid: it was revoked or mistyped. Ask for a new one.';

/**
 * GET /login/<token>: a personal login link only asks "Sign in as <name>?" and sets nothing:
 * any site can send a browser to a link (login CSRF — the victim would answer as the
 * attacker), but only our own page can make the POST that signs in.
 */
export async function loginRoute(c: Ctx, [token]: string[]) {
  const person = token.length <= 200 ? await c.deps.ops.personByToken(token) : null;
  const view = pageView(c);
  if (!person) {
    renderPage(c, view, loginPage(view, INVALID_LOGIN), 401);
    return;
  }
  renderPage(c, view, loginConfirmPage(view, person.name, token));
}

/**
 * POST /login (same-origin, checked for every POST): the cookie gets a signed session that
 * expires (core's openWebSession), never the login token — browsers show a 127.0.0.1 cookie
 * to every local server whatever its port. After a same-origin post a 303 carries the
 * SameSite=Strict cookie on to /.
 */
export async function loginPostRoute(c: Ctx) {
  const token = (await readForm(c.req)).get('token') ?? '';
  const opened = token.length <= 200 ? await c.deps.ops.openWebSession(token) : null;
  if (!opened) {
    const view = pageView(c);
    renderPage(c, view, loginPage(view, INVALID_LOGIN), 401);
    return;
  }
  c.setCookies.push(sessionCookie(c.sessionCookie, opened.session, opened.expiresAt - c.deps.ops.now(), c.secure));
  flashTo(c, '/', 'ok', `Signed in as ${opened.name}`);
}

/** POST /logout: ends the session on the server (a copy of the cookie is refused too), and forgets the cookie in this browser. */
export async function logoutRoute(c: Ctx) {
  const form = await readForm(c.req);
  c.csrf.check(c.session!.token, form.get('csrf'));
  await c.deps.ops.endWebSession(c.session!.token);
  c.setCookies.push(clearCookie(c.sessionCookie, c.secure));
  flashTo(c, '/', 'ok', 'Signed out');
}

function answeredInfo(a: Answer | null) {
  return a
    ? {
        responder: a.responder,
        channel: a.channel,
        at: new Date(a.answeredAt).toISOString(),
        verdict: a.verdict,
        status: a.status,
      }
    : null;
}

/**
 * GET /a/<token>: the page of one ask, answerable without signing in. Forged → 400,
 * expired → 410 (the error says so); answered already → the page says who answered and when.
 */
export async function linkRoute(c: Ctx, [token]: string[]) {
  const link = await c.deps.ops.verifyAnswerLink(token);
  const answer = await c.deps.ops.answerOf(link.runId, link.key, link.ask);
  const ask = answer ? null : await openAskRow(c.deps, link.handle);
  const view = pageView(c, c.session?.token ?? LINK_SESSION(token));
  const page = askPage(view, {
    ask,
    handle: link.handle,
    answered: answeredInfo(answer),
    action: `/a/${token}`,
    nameField: !c.session,
    name: readAnswerer(c.cookies),
  });
  renderPage(c, view, page);
}

/**
 * POST /a/<token>: the answer; the responder is the signed-in person, else the name typed. A
 * refused answer (no name, a bad value, what the ask does not take) comes back as the link's
 * page with the form as it was posted and why, as on a signed-in page (status 400 all the same).
 */
export async function linkAnswerRoute(c: Ctx, [token]: string[]) {
  const link = await c.deps.ops.verifyAnswerLink(token);
  const form = await readForm(c.req);
  const session = c.session?.token ?? LINK_SESSION(token);
  c.csrf.check(session, form.get('csrf'));
  let answered;
  try {
    const responder = c.session?.name ?? typedName(form.get('by'));
    answered = await answerPosted(c.deps, link.handle, form, 'link', responder);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    const ask = await openAskRow(c.deps, link.handle);
    if (!ask) throw e;
    const view = pageView(c, session);
    renderPage(
      c,
      view,
      askPage(view, {
        ask,
        handle: link.handle,
        answered: null,
        action: `/a/${token}`,
        nameField: !c.session,
        refused: { posted: form, error: webErrorText(e) },
        name: readAnswerer(c.cookies),
      }),
      400,
    );
    return;
  }
  // Remembered on this device: the next answer link opened here fills the name in.
  if (!c.session) c.setCookies.push(answererCookie(answered.responder, c.secure));
  flashTo(c, `/a/${token}`, 'ok', answeredText(answered));
}

export function errorResponse(c: Ctx, status: number, text: string) {
  const view = pageView(c);
  const page = status === 401 ? loginPage(view, text) : errorPage(view, status, text);
  renderPage(c, view, page, status);
}
