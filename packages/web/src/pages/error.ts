import { html } from '../html.js';
import type { Page, PageView } from './layout.js';

/** What a status means to the person who met it, as a heading. */
const HEADINGS: Record<number, string> = {
  400: 'That was not accepted',
  401: 'Sign in first',
  403: 'Refused',
  404: 'Not found',
  409: 'Someone was first',
  410: 'This link has expired',
  413: 'Too much at once',
  421: 'Wrong address',
  500: 'Something went wrong',
  503: 'Busy',
};

/** A refusal or failure as a page: what happened in words, the server's one line, a way back. */
export function errorPage(view: PageView, status: number, text: string): Page {
  const heading = HEADINGS[status] ?? (status >= 500 ? 'Something went wrong' : 'That did not work');
  return {
    title: heading,
    body: html`<section class="card error-page">
<h1>${heading} <span class="status-code">${status}</span></h1>
<p>${text}</p>
<p>${view.me ? html`<a href="/">Back to the inbox</a>` : ''}</p>
</section>`,
  };
}
