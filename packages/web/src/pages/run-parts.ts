import { isAtWork } from '@shop/core';
import type { EventJson, ExecutionJson, RunDetailJson } from '@shop/core';
import { html, type Html } from '../html.js';
import { badge, clip, cost, duration, when } from './format.js';
import { laneOf } from './timeline-model.js';

/** A result as a person reads it: an agent's {status, summary}, a string, else its JSON, bounded. */
export function readableResult(result: unknown): string {
  if (result === null || result === undefined) return '';
  if (typeof result === 'string') return clip(result, 2000);
  const r = result as { status?: unknown; summary?: unknown };
  if (typeof r.summary === 'string')
    return clip(`${typeof r.status === 'string' ? `${r.status}: ` : ''}${r.summary}`, 2000);
  return clip(JSON.stringify(result, null, 2), 4000);
}

/** A result on the page: words as a paragraph, a workflow's table as indented JSON. */
export function resultBlock(result: unknown): Html {
  const text = readableResult(result);
  if (!text) return html``;
  const structured = typeof result === 'object' && typeof (result as { summary?: unknown }).summary !== 'string';
  return structured ? html`<pre class="result">${text}</pre>` : html`<p class="words">${text}</p>`;
}

/**
 * The agent's last words: for the latest agent call, what it is asking (waiting), what it is
 * doing (running), or what it reported (its result), else its error.
 */
export function lastWords(d: RunDetailJson, now: number): Html {
  const last = [...d.executions].filter((e) => e.kind === 'run').sort((a, b) => b.seq - a.seq)[0];
  if (!last) return html``;
  const words =
    last.status === 'waiting_human'
      ? html`<p class="words ask-words">${clip(last.waiting_for, 4000)}</p>`
      : last.status === 'running'
        ? html`<p class="words">${last.activity ?? 'working…'} <span class="muted">${last.activity_at ? when(last.activity_at, now) : ''}</span></p>`
        : html`<p class="words">${readableResult(last.result) || last.error || '(nothing reported)'}</p>`;
  return html`<section class="card last-words">
<h2>Last words <span class="muted">· ${last.agent ?? 'agent'} (call ${last.key})</span></h2>
${words}
</section>`;
}

/** Calls at work now, with their latest activity (what the page's live updates refresh). */
export function liveActivity(d: RunDetailJson, now: number): Html {
  const working = d.executions.filter(isAtWork);
  if (!working.length) return html``;
  return html`<section class="card activity">
<h2>At work now</h2>
<ul>${working.map((e) => html`<li><b>${e.key}</b> ${e.agent ?? e.kind}: ${e.activity ?? 'starting…'} <span class="muted">since ${when(e.attempt_at ?? e.started_at, now)}</span></li>`)}</ul>
</section>`;
}

/** How long a call took from start to end (waits included), or has taken so far. */
function took(e: ExecutionJson, now: number): string {
  if (!e.started_at) return '';
  const end = e.finished_at ? Date.parse(e.finished_at) : now;
  return `${duration(end - Date.parse(e.started_at))}${e.finished_at ? '' : ' so far'}`;
}

/** Every call, grouped by strand: the main script, then each parallel branch on its own. */
export function callList(d: RunDetailJson, now: number): Html {
  const lanes = new Map<string, ExecutionJson[]>();
  for (const e of [...d.executions].sort((a, b) => a.seq - b.seq)) {
    const lane = laneOf(e.key);
    lanes.set(lane, [...(lanes.get(lane) ?? []), e]);
  }
  const hidden = d.calls - d.executions.length;
  return html`<section class="card calls">
<h2>Calls <span class="count">${d.calls}</span></h2>
${hidden > 0 ? html`<p class="muted">The ${hidden} earliest calls are not shown.</p>` : ''}
${[...lanes].map(
  ([lane, calls]) => html`<h3 class="lane-name">${lane ? `branch ${lane}` : 'main'}</h3>
<ul class="call-list">${calls.map(
    (e) => html`<li class="call">
<span class="key">${e.key}</span> <span class="what">${e.kind === 'run' ? e.agent : e.kind}</span> ${badge(e.status)}
<span class="meta"><span>${when(e.started_at, now)}</span><span>${took(e, now)}</span>${e.cost_usd ? html`<span>${cost(e.cost_usd)}</span>` : ''}${e.attempts > 1 ? html`<span>${e.attempts} attempts</span>` : ''}</span>
${e.error ? html`<p class="error-text">${clip(e.error, 600)}</p>` : ''}
</li>`,
  )}</ul>`,
)}
</section>`;
}

/** What events say, briefly: who did what to which call. */
function eventLine(ev: EventJson): string {
  const d = ev.data ?? {};
  const detail =
    typeof d.message === 'string'
      ? d.message
      : typeof d.reason === 'string'
        ? d.reason
        : typeof d.waiting_for === 'string'
          ? d.waiting_for
          : typeof d.verdict === 'string'
            ? d.verdict
            : '';
  return clip(detail, 200);
}

/** The latest events, newest first (a short trail; shop log has all of it). */
export function recentEvents(events: EventJson[], now: number, max = 12): Html {
  const latest = [...events]
    .sort((a, b) => b.id - a.id)
    .filter((e) => e.type !== 'agent_activity')
    .slice(0, max);
  if (!latest.length) return html``;
  return html`<section class="card events">
<h2>Recent events</h2>
<ul class="event-list">${latest.map((ev) => html`<li><span class="ev-type">${ev.type.replaceAll('_', ' ')}</span>${ev.key ? html` <span class="key">${ev.key}</span>` : ''} <span class="muted">by ${ev.actor} (${ev.channel}) ${when(ev.at, now)}</span>${eventLine(ev) ? html`<br><span class="ev-detail">${eventLine(ev)}</span>` : ''}</li>`)}</ul>
</section>`;
}
