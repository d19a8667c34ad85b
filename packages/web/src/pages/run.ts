import { mayAct, pauseDeadline } from '@shop/core';
import type { EventJson, PauseSpec, RunDetailJson } from '@shop/core';
import { html } from '../html.js';
import { askCard, type AskMore } from './ask-card.js';
import { badge, clip, cost, when } from './format.js';
import type { Page, PageView } from './layout.js';
import { callList, lastWords, liveActivity, recentEvents, resultBlock } from './run-parts.js';
import { timeline } from './timeline.js';

/** One run: where it stands, its open asks (answerable here), the timeline picture, every call. */
export function runPage(view: PageView, d: RunDetailJson, events: EventJson[]): Page {
  const back = `/runs/${d.id}`;
  const ended = d.ended_at !== null;
  return {
    title: `Run ${d.id} · ${d.spec}`,
    body: html`<h1>Run #${d.id} <span class="spec">${d.spec}</span> ${badge(d.status)}</h1>
<p class="prompt">${clip(d.prompt, 2000)}</p>
<p class="meta">
  <span>started ${when(d.created_at, view.now)}</span>
  ${ended ? html`<span>ended ${when(d.ended_at, view.now)}</span>` : ''}
  <span>cost ${cost(d.cost_usd)}</span>
  ${d.branch ? html`<span>branch <code>${d.branch}</code></span>` : ''}
</p>
${d.parent !== null ? html`<p class="family">A child of <a class="run-link" href="/runs/${d.parent}">run ${d.parent}</a> (its call_workflow or start_workflow)</p>` : ''}
${d.children.length ? html`<p class="family">Children: ${d.children.map((c) => html`<a class="run-link" href="/runs/${c.id}">run ${c.id}</a> <span class="spec">${c.spec}</span> ${badge(c.status)} `)}</p>` : ''}
${d.status === 'interrupted' ? html`<p class="flash error">No process drives this run since ${when(d.driver_gone_since, view.now)} (it was stopped or crashed). <code>shop resume ${d.id}</code> or <code>shop watch</code> goes on from where it was.</p>` : ''}
${
  ended && (d.reason || d.result != null)
    ? html`<section class="card outcome s-${d.status}">
<h2>Outcome</h2>
${d.reason ? html`<p class="words">${clip(d.reason, 2000)}</p>` : ''}
${resultBlock(d.result)}
</section>`
    : ''
}
${
  d.asks.length
    ? html`<section class="asks"><h2>Waiting for a person <span class="count">${d.asks.length}</span></h2>
${d.asks.map((ask) => askCard(view, ask, back, pauseDetails(d, ask.key)))}</section>`
    : ''
}
${
  d.waiting_on.length
    ? html`<section class="card waits"><h2>Waiting on</h2>
<p class="words">${clip(d.waiting_for, 600)} — no person is needed: <code>shop watch</code> resumes it then.</p>
<ul>${d.waiting_on.map((w) => html`<li><b>${w.key}</b> ${w.kind}${w.until ? html` until ${when(w.until, view.now)}` : ''}</li>`)}</ul>
</section>`
    : ''
}
${lastWords(d, view.now)}
${liveActivity(d, view.now)}
<section class="card">
<h2>Timeline</h2>
<div class="timeline-wrap">${timeline(d.executions, events, d.asks, view.now)}</div>
<p class="legend"><span class="sw s-running"></span>running <span class="sw s-waiting_human"></span>waiting <span class="sw s-completed"></span>completed <span class="sw s-failed"></span>failed <span class="sw wait"></span>time waiting for a person</p>
</section>
${callList(d, view.now)}
${recentEvents(events, view.now)}
${
  mayAct(d, 'stop')
    ? html`<section class="card stop">
<h2>Stop this run</h2>
<form method="post" action="/runs/${d.id}/stop" class="stop-form">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="stop-reason">Reason <span class="muted">(optional)</span></label>
<input type="text" id="stop-reason" name="reason" maxlength="500" autocomplete="off">
<p class="actions"><button type="submit" class="btn b-stop">Stop run #${d.id}</button></p>
</form>
</section>`
    : ''
}`,
  };
}

/** A pause's context and deadline, from its recorded spec (the inbox rows do not carry them). */
function pauseDetails(d: RunDetailJson, key: string): AskMore {
  const e = d.executions.find((x) => x.key === key);
  if (!e || e.kind !== 'pause' || !e.request || typeof e.request !== 'object') return {};
  const spec = e.request as Partial<PauseSpec>;
  const due = e.started_at ? pauseDeadline({ deadline: spec.deadline }, Date.parse(e.started_at)) : null;
  return {
    context: typeof spec.context === 'string' ? spec.context : null,
    deadline: due === null || Number.isNaN(due) ? null : new Date(due).toISOString(),
  };
}
