import { html } from '../html.js';
import type { Page, PageView } from './layout.js';

/** Shown to whoever has no session: how to get in (a personal link), and why a link failed. */
export function loginPage(_view: PageView, message: string | null): Page {
  return {
    title: 'Sign in',
    body: html`<section class="card login">
<h1>Sign in</h1>
${message ? html`<p class="flash error" role="alert">${message}</p>` : ''}
<p>This inbox opens with a personal link. Ask whoever runs shop on this machine for one:</p>
<pre><code>shop access add &lt;your name&gt;</code></pre>
<p>It prints a link: open it in this browser and you are signed in.</p>
</section>`,
  };
}

/**
 * A login link's page: it asks, and only the button (a same-origin form post, no script
 * needed) signs in — a link another site sends the browser to signs no one in.
 */
export function loginConfirmPage(_view: PageView, name: string, token: string): Page {
  return {
    title: 'Sign in',
    body: html`<section class="card login">
<h1>Sign in to Shop as ${name}?</h1>
<form method="post" action="/login">
<input type="hidden" name="token" value="${token}">
<button type="submit" class="btn b-decide">Sign in as ${name}</button>
</form>
<p>Not you? Close this page: nothing has changed yet.</p>
</section>`,
  };
}
