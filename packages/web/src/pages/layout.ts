import { html, type Html } from '../html.js';

/** What every page knows about the request: who is signed in, their CSRF token, a one-time message. */
export interface PageView {
  me: string | null;
  csrf: string;
  flash: { kind: 'ok' | 'error'; text: string } | null;
  now: number;
}

/** What each page function returns: the layout wraps it (or the server sends `body` alone for partial=1). */
export interface Page {
  title: string;
  body: Html;
}

/**
 * The whole document. No inline script or style anywhere (the CSP allows only 'self'): the
 * look is app.css, live updates app.js, and every form works without it.
 */
export function layout(view: PageView, page: Page): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${page.title} · shop</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body${view.me ? html` data-live` : ''}>
<header class="top">
  <a class="brand" href="/">shop</a>
  <nav>${view.me ? html`<a href="/">Inbox</a> <a href="/runs">Runs</a> <a href="/start">Start a run</a>` : ''}</nav>
  <span class="me">${view.me ? html`signed in as <b>${view.me}</b>` : 'not signed in'}</span>
</header>
${view.flash ? html`<p class="flash ${view.flash.kind}" role="${view.flash.kind === 'error' ? 'alert' : 'status'}">${view.flash.text}</p>` : ''}
<main id="live">
${page.body}
</main>
</body>
</html>
`;
}

/** What a live refresh (?partial=1) swaps into #live: the page's body, led by its new title for the tab. */
export const partialBody = (page: Page): Html =>
  html`<span hidden id="page-title" data-title="${page.title} · shop"></span>${page.body}`;

/** The whole document, or with `partial` only what goes inside #live (see partialBody). */
export function renderPage(view: PageView, page: Page, partial = false): Html {
  return partial ? partialBody(page) : layout(view, page);
}
