import { html } from '../html.js';
import type { Page, PageView } from './layout.js';

export interface StartForm {
  workflows: string[];
  /** The form as it was posted, when it comes back refused (nothing typed is lost). */
  posted: URLSearchParams | null;
  error: string | null;
}

/**
 * "Start a run": a workflow, its prompt, and where it goes in the queue. A plain form (it
 * works without JavaScript, and on a phone): the run is queued for the workers, and the page
 * goes to the run's page, which follows it from queued to running live.
 */
export function startPage(view: PageView, form: StartForm): Page {
  const v = (name: string) => form.posted?.get(name) ?? '';
  const chosen = v('workflow');
  return {
    title: 'Start a run',
    body: html`<h1>Start a run</h1>
${form.error ? html`<p class="flash error" role="alert">${form.error}</p>` : ''}
${
  form.workflows.length
    ? html`<form class="start" method="post" action="/start">
<input type="hidden" name="csrf" value="${view.csrf}">
<label for="start-workflow">Workflow</label>
<select id="start-workflow" name="workflow" required>${form.workflows.map(
        (w) => html`<option value="${w}"${w === chosen ? html` selected` : ''}>${w}</option>`,
      )}</select>
<label for="start-prompt">Prompt</label>
<textarea id="start-prompt" name="prompt" rows="6" maxlength="100000">${v('prompt')}</textarea>
<details${v('key') || v('priority') ? html` open` : ''}><summary>Queue</summary>
<label for="start-key">Key <span class="muted">(runs of one key count apart against the workflow's concurrency, e.g. prod)</span></label>
<input id="start-key" name="key" maxlength="100" value="${v('key')}" autocapitalize="off" spellcheck="false">
<label for="start-priority">Priority <span class="muted">(higher is taken first)</span></label>
<input id="start-priority" name="priority" type="number" step="1" inputmode="numeric" value="${v('priority') || '0'}">
</details>
<p class="actions"><button type="submit" class="btn b-answer">Start</button></p>
</form>`
    : html`<p class="empty">No workflows in this project's workflows/ folder.</p>`
}`,
  };
}
