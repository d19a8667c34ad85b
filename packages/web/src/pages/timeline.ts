import type { EventJson, ExecutionJson, PendingJson } from '@shop/core';
import { html, type Html } from '../html.js';
import { duration, statusWord } from './format.js';
import { timelineModel, type Bar, type TimelineModel } from './timeline-model.js';

/** Status colours (the same as app.css's badges), as SVG presentation attributes. */
export const STATUS_FILL: Record<Bar['status'], string> = {
  running: '#2563eb',
  waiting: '#0891b2',
  waiting_human: '#d97706',
  completed: '#16a34a',
  failed: '#dc2626',
};

const W = 720;
const LABEL = 110;
const LANE_H = 30;
const BAR_H = 18;
const AXIS_H = 24;
const TOP = 6;
/** Room at the right for the last tick's label. */
const RIGHT = 28;

/** Axis steps a person reads easily, in ms. */
const STEPS = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400, 172_800, 604_800,
].map((s) => s * 1000);

/** The tick step that puts at most `most` ticks on a span. */
export function tickStep(span: number, most = 6): number {
  return STEPS.find((s) => span / s <= most) ?? Math.ceil(span / most / 86_400_000) * 86_400_000;
}

/** "0", "30 s", "2 min", "1 h 30 min", "2 d": an offset from the run's first call. */
export function tickLabel(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s === 0) return '0';
  if (s < 60) return `${s} s`;
  if (s < 3600) return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
  if (s < 86_400) return s % 3600 ? `${Math.floor(s / 3600)} h ${Math.round((s % 3600) / 60)} min` : `${s / 3600} h`;
  return `${Math.round((s / 86_400) * 10) / 10} d`;
}

/** The run's timeline picture from its calls and events (see timelineModel). */
export function timeline(
  executions: ExecutionJson[],
  events: EventJson[],
  asks: Pick<PendingJson, 'key' | 'waiting_since'>[],
  now: number,
): Html {
  return timelineSvg(timelineModel(executions, events, asks, now));
}

/**
 * An inline SVG: one lane per strand (label at the left), each call a bar coloured by its
 * status with a hatched overlay where it waited for a person, and a time axis below. Every
 * bar has a <title> (a tooltip, and what a screen reader reads).
 */
export function timelineSvg(m: TimelineModel): Html {
  if (!m.lanes.length) return html`<p class="empty">No call has started yet.</p>`;
  const span = m.end - m.start;
  const x = (t: number) => LABEL + ((t - m.start) / span) * (W - LABEL - RIGHT);
  const height = TOP + m.lanes.length * LANE_H + AXIS_H;
  const step = tickStep(span);
  const ticks: number[] = [];
  for (let t = 0; t <= span; t += step) ticks.push(t);
  return html`<svg class="timeline" viewBox="0 0 ${W} ${height}" width="${W}" height="${height}" role="img" aria-labelledby="tl-title" xmlns="http://www.w3.org/2000/svg" font-family="system-ui, sans-serif" font-size="12">
<title id="tl-title">Timeline: ${m.lanes.reduce((n, l) => n + l.bars.length, 0)} calls over ${duration(span)}, in ${m.lanes.length} lane${m.lanes.length === 1 ? '' : 's'}</title>
<defs><pattern id="tl-wait" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#ffffff" fill-opacity="0.55"/></pattern></defs>
${ticks.map(
  (
    t,
  ) => html`<line class="tick" x1="${x(m.start + t).toFixed(1)}" x2="${x(m.start + t).toFixed(1)}" y1="${TOP}" y2="${height - AXIS_H + 4}" stroke="#94a3b8" stroke-opacity="0.35"/>
<text x="${x(m.start + t).toFixed(1)}" y="${height - 6}" text-anchor="middle" fill="#64748b">${tickLabel(t)}</text>`,
)}
${m.now !== null ? html`<line class="now" x1="${x(m.now).toFixed(1)}" x2="${x(m.now).toFixed(1)}" y1="${TOP - 4}" y2="${height - AXIS_H + 4}" stroke="#0f172a" stroke-dasharray="3 3"><title>now</title></line>` : ''}
${m.lanes.map((lane, i) => {
  const y = TOP + i * LANE_H;
  return html`<g class="lane" data-lane="${lane.id}">
<text x="4" y="${y + LANE_H / 2 + 4}" fill="#334155">${lane.label}</text>
${lane.bars.map((b) => bar(b, x, y + (LANE_H - BAR_H) / 2))}
</g>`;
})}
</svg>`;
}

function bar(b: Bar, x: (t: number) => number, y: number): Html {
  const x0 = x(b.start);
  const w = Math.max(2, x(b.end) - x0);
  const waited = b.waits.reduce((n, [a, z]) => n + (z - a), 0);
  const who = b.kind === 'run' ? (b.agent ?? 'agent') : b.kind;
  const title = `${b.key} ${who}: ${statusWord(b.status)}, ${duration(b.end - b.start)}${b.open ? ' so far' : ''}${waited ? `, ${duration(waited)} waiting for a person` : ''}`;
  return html`<g class="bar" data-key="${b.key}" data-status="${b.status}">
<title>${title}</title>
<rect x="${x0.toFixed(1)}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H}" rx="3" fill="${STATUS_FILL[b.status]}"/>
${b.waits.map(([a, z]) => {
  const wx = x(a).toFixed(1);
  const ww = Math.max(2, x(z) - x(a)).toFixed(1);
  return html`<rect class="wait" x="${wx}" y="${y}" width="${ww}" height="${BAR_H}" fill="${STATUS_FILL.waiting_human}"/><rect x="${wx}" y="${y}" width="${ww}" height="${BAR_H}" fill="url(#tl-wait)"/>`;
})}
${w > 46 ? html`<text x="${(x0 + 4).toFixed(1)}" y="${y + BAR_H - 5}" fill="#ffffff" stroke="#0f172a" stroke-opacity="0.45" stroke-width="2" paint-order="stroke" pointer-events="none">${fit(`${b.key} ${who}`, w)}</text>` : ''}
</g>`;
}

/** A bar's label cut to what fits (about 7 px per character at 12 px). */
const fit = (text: string, width: number) => {
  const n = Math.floor((width - 8) / 7);
  return text.length > n ? `${text.slice(0, Math.max(1, n - 1))}…` : text;
};
