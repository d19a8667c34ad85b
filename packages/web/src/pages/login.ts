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
