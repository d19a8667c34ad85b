import type { InboxRowJson } from '@shop/core/operations/shapes';
import { html } from '../html.js';
import { askCard } from './ask-card.js';
import type { Page, PageView } from './layout.js';

/** The inbox: every open ask, oldest first, each answerable where it stands. */
export function inboxPage(view: PageView, rows: InboxRowJson[]): Page {
  const oldestFirst = [...rows].sort((a, b) => (a.waiting_since ?? '').localeCompare(b.waiting_since ?? '') || a.run - b.run);
  return {
    title: rows.length ? `Inbox (${rows.length})` : 'Inbox',
    body: html`<h1>Inbox <span class="count">${rows.length}</span></h1>
${oldestFirst.length
  ? oldestFirst.map((row) => askCard(view, row, '/'))
  : html`<p class="empty">Nothing is waiting for a person. Runs that need you appear here as they ask. <a href="/runs">See all runs</a>.</p>`}`,
  };
}
