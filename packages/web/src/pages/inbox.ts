import type { InboxRowJson } from '@shop/core';
import { html } from '../html.js';
import { askCard } from './ask-card.js';
import type { Page, PageView } from './layout.js';

/**
 * Cards on the page at most: each is ~2 KB with its forms, and the live refresh fetches the
 * page again on every change — 3,000 open asks made a 6.5 MB page, refetched each time.
 */
export const INBOX_PAGE_ASKS = 200;

/** The inbox: the open asks, oldest first (the oldest INBOX_PAGE_ASKS), each answerable where it stands. */
export function inboxPage(view: PageView, rows: InboxRowJson[]): Page {
  const sorted = [...rows].sort(
    (a, b) => (a.waiting_since ?? '').localeCompare(b.waiting_since ?? '') || a.run - b.run,
  );
  const oldestFirst = sorted.slice(0, INBOX_PAGE_ASKS);
  const more = rows.length - oldestFirst.length;
  return {
    title: rows.length ? `Inbox (${rows.length})` : 'Inbox',
    body: html`<h1>Inbox <span class="count">${rows.length}</span></h1>
${
  oldestFirst.length
    ? html`${oldestFirst.map((row) => askCard(view, row, '/'))}${more > 0 ? html`<p class="more">${more.toLocaleString('en')} more waiting, newer than these: they show here as these are answered (all of them: shop inbox, or <a href="/api/inbox">/api/inbox</a>).</p>` : ''}`
    : html`<p class="empty">Nothing is waiting for a person. Runs that need you appear here as they ask. <a href="/runs">See all runs</a>.</p>`
}`,
  };
}
