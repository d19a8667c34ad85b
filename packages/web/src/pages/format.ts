import { localTime } from '@shop/core';
import { html, type Html } from '../html.js';

/** "just now", "3 min ago", "2 h ago", "4 d ago" — or "in 2 h" for a time still ahead — as of `now`. */
export function ago(iso: string | null, now: number): string {
  if (!iso) return '';
  const diff = Math.round((now - Date.parse(iso)) / 1000);
  const s = Math.abs(diff);
  if (s < 45) return 'just now';
  const span =
    s < 3600 ? `${Math.round(s / 60)} min` : s < 86_400 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86_400)} d`;
  return diff < 0 ? `in ${span}` : `${span} ago`;
}

/** "1.2 s", "3 min 5 s", "2 h 4 min". */
export function duration(ms: number | null): string {
  if (ms == null || !Number.isFinite(ms)) return '';
  const s = Math.max(0, Math.round(ms / 1000));
  if (ms < 10_000) return `${(Math.max(0, ms) / 1000).toFixed(1)} s`;
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  return Math.floor((s % 3600) / 60)
    ? `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`
    : `${Math.floor(s / 3600)} h`;
}

export const cost = (usd: number | null): string =>
  usd == null ? '' : usd === 0 ? '$0' : `$${usd.toFixed(usd < 1 ? 4 : 2)}`;

/**
 * A moment as `<time>`: the relative phrase, with the local time (and its UTC offset) beside
 * it; the page script rewrites the local time into the reader's own zone.
 */
export function when(iso: string | null, now: number): Html {
  if (!iso) return html`<span class="muted">—</span>`;
  return html`<time datetime="${iso}" title="${localTime(Date.parse(iso))}">${ago(iso, now)}</time> <span class="local">${localTime(Date.parse(iso))}</span>`;
}

/** A status as a coloured badge (the class names are the statuses: see app.css). */
export const badge = (status: string): Html => html`<span class="badge s-${status}">${statusWord(status)}</span>`;

/** A status in a word a person reads: "waiting" for waiting_human, "waiting on" (time, an event, a run) for waiting. */
export const statusWord = (status: string): string =>
  status === 'waiting_human' ? 'waiting' : status === 'waiting' ? 'waiting on' : status.replaceAll('_', ' ');

/** Text bounded for display: a long agent answer would bury the page. */
export function clip(text: string | null | undefined, max = 600): string {
  if (!text) return '';
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
