import { displayStatuses } from '@shop/core';
import type { RunJson } from '@shop/core';
import { html, type Html } from '../html.js';
import { badge, clip, cost, duration, statusWord, when } from './format.js';
import { readableResult } from './run-parts.js';
import type { Page, PageView } from './layout.js';

export interface RunsList {
  rows: RunJson[];
  /** How many runs match the filter (rows may be the newest of them only). */
  total: number;
  /** The status filter, or null for all. */
  status: string | null;
}

/** The filter links, in the order a person scans them: what is alive first. */
const FILTERS: ((typeof displayStatuses)[number] | null)[] = [
  null,
  'queued',
  'running',
  'waiting_human',
  'waiting',
  'interrupted',
  'completed',
  'stuck',
  'failed',
];

/** Runs, newest first, with status filters; each links to its detail page. */
export function runsPage(view: PageView, list: RunsList): Page {
  const filters = FILTERS.map((s) => {
    const current = (s ?? null) === list.status;
    const label = s ? statusWord(s) : 'all';
    return html`<a class="filter${current ? ' current' : ''}${s ? ` s-${s}` : ''}" href="${s ? `/runs?status=${s}` : '/runs'}"${current ? html` aria-current="page"` : ''}>${label}</a>`;
  });
  return {
    title: list.status ? `Runs · ${statusWord(list.status)}` : 'Runs',
    body: html`<h1>Runs <span class="count">${list.total}</span></h1>
<nav class="filters" aria-label="filter by status">${filters}</nav>
${
  list.rows.length
    ? html`<form id="bulk" class="bulk" method="post" action="/runs/bulk">
<input type="hidden" name="csrf" value="${view.csrf}">
<input type="hidden" name="back" value="${list.status ? `/runs?status=${list.status}` : '/runs'}">
<label for="bulk-reason">With the selected runs</label>
<input id="bulk-reason" name="reason" type="text" maxlength="500" placeholder="why (recorded when stopping)">
<p class="actions"><button type="submit" name="action" value="resume" class="btn b-claim">Resume selected</button> <button type="submit" name="action" value="stop" class="btn b-stop">Stop selected</button></p>
</form>
<ul class="runs">${list.rows.map((r) => runRow(view, r))}</ul>
${list.total > list.rows.length ? html`<p class="muted">Showing the newest ${list.rows.length} of ${list.total}.</p>` : ''}`
    : html`<p class="empty">${list.status ? `No ${statusWord(list.status)} runs.` : 'No runs yet: start one with shop run <workflow> "<prompt>".'}</p>`
}`,
  };
}

function runRow(view: PageView, r: RunJson): Html {
  const doing =
    r.status === 'interrupted'
      ? html`<span class="doing">no driver since ${when(r.driver_gone_since, view.now)} — <code>shop resume ${r.id}</code> goes on</span>`
      : r.status === 'queued'
        ? html`<span class="doing">waits for a worker${r.priority ? ` · priority ${r.priority}` : ''}${r.key ? ` · key ${r.key}` : ''}</span>`
        : r.status === 'waiting_human'
          ? html`<span class="doing">waiting: ${clip(r.waiting_for, 160)}</span>`
          : r.status === 'waiting'
            ? html`<span class="doing">waits on ${clip(r.waiting_for, 160)}</span>`
            : r.activity
              ? html`<span class="doing">${r.activity.agent ?? r.activity.key}: ${clip(r.activity.text, 160)}</span>`
              : r.reason || r.result != null
                ? html`<span class="doing">${clip(r.reason ?? readableResult(r.result).replace(/\s+/g, ' '), 160)}</span>`
                : '';
  return html`<li class="run-row">
<input type="checkbox" class="pick" name="run" value="${r.id}" form="bulk" aria-label="select run ${r.id}">
<a class="run-id" href="/runs/${r.id}">#${r.id}</a>
${badge(r.status)}
<span class="spec">${r.spec}</span>
<span class="prompt">${clip(r.prompt, 200)}</span>
${doing}
<span class="meta">${r.agent && !r.agent.startsWith('_') ? html`<span>${r.agent}</span>` : ''}<span>started ${when(r.created_at, view.now)}</span>${r.ended_at ? html`<span>took ${duration(Date.parse(r.ended_at) - Date.parse(r.created_at))}</span>` : ''}${r.cost_usd ? html`<span>${cost(r.cost_usd)}</span>` : ''}</span>
</li>`;
}
