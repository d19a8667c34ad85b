import type { InboxRowJson } from '@shop/core';
import { html } from '../html.js';
import { answerForms, type RefusedForm } from './answer-forms.js';
import { asker, askKind, question } from './ask-card.js';
import { when } from './format.js';
import type { Page, PageView } from './layout.js';

export interface AskPageData {
  /** The ask, while it is open. */
  ask: InboxRowJson | null;
  handle: string;
  /** Who answered it, once someone has (first answer wins: a late visitor sees this). */
  answered: { responder: string; at: string; verdict?: string | null; status?: string | null; channel?: string } | null;
  /** Where the forms post (an answer link: its own /a/<token>). */
  action: string;
  /** Ask for the person's name (an answer link has no login). */
  nameField: boolean;
  /** Where a signed-in person goes once the answer is recorded (the page they answered from). */
  back?: string;
  /** A form the server refused, shown again as posted with why. */
  refused?: RefusedForm;
  /** The name this device answered a link with before (filled in; it may be changed). */
  name?: string | null;
}

/** How an answer came in, as a person says it. */
const CHANNEL_WORDS: Record<string, string> = {
  web: 'from the web inbox',
  link: 'through an answer link',
  cli: 'at the command line',
  tui: 'in the terminal UI',
  continue: 'in a shop continue session',
  signal: 'with shop signal',
};

/** One ask on its own page (an answer link's target): the question and its forms, or who answered. */
export function askPage(view: PageView, data: AskPageData): Page {
  const { ask, answered } = data;
  if (answered) {
    const outcome = answered.verdict ?? answered.status ?? null;
    const how = answered.channel ? (CHANNEL_WORDS[answered.channel] ?? `on ${answered.channel}`) : null;
    return {
      title: `Answered · ${data.handle}`,
      body: html`<section class="card answered">
<h1>Already answered</h1>
${ask ? question(ask) : ''}
<p><b>${answered.responder}</b> answered ${when(answered.at, view.now)}${how ? ` ${how}` : ''}${outcome ? html` — <span class="verdict">${outcome}</span>` : ''}.</p>
<p class="muted">Ask ${data.handle}. Each ask takes one answer: the first one wins.</p>
</section>`,
    };
  }
  if (!ask) {
    return {
      title: `Closed · ${data.handle}`,
      body: html`<section class="card answered">
<h1>This ask is closed</h1>
<p>Ask ${data.handle} is no longer waiting for a person (its run moved on or was stopped).</p>
</section>`,
    };
  }
  return {
    title: `Answer · ${ask.spec} ${ask.handle}`,
    body: html`<section class="ask card single" data-handle="${ask.handle}">
<header class="ask-head"><span class="kind k-${askKind(ask)}">${askKind(ask)}</span> <span>run ${ask.run}</span> <span class="spec">${ask.spec}</span> <span class="handle">${ask.handle}</span></header>
${question(ask)}
<p class="meta">${asker(ask)} <span>waiting since ${when(ask.waiting_since, view.now)}</span></p>
${answerForms(ask, { action: data.action, csrf: view.csrf, nameField: data.nameField, back: data.back, refused: data.refused, name: data.name })}
</section>`,
  };
}
