import { html } from '../html.js';
import type { Page, PageView } from './layout.js';

/** A refusal or failure as a page: the status, one line saying what was wrong, a way back. */
export function errorPage(view: PageView, status: number, text: string): Page {
  return {
    title: `${status}`,
    body: html`<section class="card error-page">
<h1>${status}</h1>
<p>${text}</p>
<p>${view.me ? html`<a href="/">Back to the inbox</a>` : ''}</p>
</section>`,
  };
}
