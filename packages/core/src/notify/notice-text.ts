import { capText, inert } from '../text.js';
import type { AskNotice } from './ask-notice.js';

/**
 * The words of a notice, shared by the Slack, desktop and stderr forms so they say the same
 * thing. Questions come from agents and may be long or multi-line: they are capped to one line,
 * and shown inert (control characters escaped). A command notifier's environment and a
 * webhook's JSON carry the exact text: they are data for a program, not a screen.
 */

/** The question is capped harder than QUOTE_CAP so the whole line stays near 300 characters. */
const QUESTION_CAP = 180;
const ANSWER_CAP = 100;

/** "waits for you", or for a timer that fired, how long it has been waiting. */
export function waitsPhrase(n: AskNotice): string {
  const waited = waitedText(n.waited_seconds);
  switch (n.event) {
    case 'waiting':
      return 'waits for you';
    case 'reminder':
      return `still waits for you (${waited})`;
    case 'escalation':
      return `waits for you (escalated after ${waited})`;
    case 'timeout':
      return `still waits for you (timed out after ${waited})`;
  }
}

/** 45 s, 12 min, 3 h 5 min, 2 d 4 h. */
export function waitedText(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s} s`;
  const min = Math.floor(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 24) return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
  return h % 24 === 0 ? `${Math.floor(h / 24)} d` : `${Math.floor(h / 24)} d ${h % 24} h`;
}

function questionText(n: AskNotice): string {
  return capText(n.question, QUESTION_CAP);
}

/** The first answer command (the others are in the JSON body and SHOP_ANSWER_WITH). */
function answerText(n: AskNotice): string | null {
  const first = n.answer_with[0];
  return first === undefined ? null : capText(first, ANSWER_CAP);
}

/** " or open <answer link>", when the notice has one. */
const linkText = (n: AskNotice, lead: string) => (n.answer_url ? `${lead}${n.answer_url}` : '');

/** "Shop run 3 (feature) waits for you: <question> — answer: <command> or open <answer link>" */
export function slackText(n: AskNotice): string {
  const answer = answerText(n);
  const line = inert(
    `Shop run ${n.run} (${n.spec}) ${waitsPhrase(n)}: ${questionText(n)}${answer ? ` — answer: ${answer}` : ''}${linkText(n, answer ? ' or open ' : ' — answer at ')}`,
    false,
  );
  // Slack reads <…> as links and mentions and & as an entity: these three must be escaped.
  return line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** "shop: run 3 (feature) waits for you: <question> — <command> — <answer link>", for stderr. */
export function noteLine(n: AskNotice): string {
  const answer = answerText(n);
  return inert(
    `shop: run ${n.run} (${n.spec}) ${waitsPhrase(n)}: ${questionText(n)}${answer ? ` — ${answer}` : ''}${linkText(n, ' — ')}`,
    false,
  );
}

/** Title and body of a desktop notification. */
export function desktopText(n: AskNotice): { title: string; body: string } {
  const answer = answerText(n);
  return {
    title: inert(`Shop: run ${n.run} ${waitsPhrase(n)}`, false),
    body: inert([questionText(n), answer, n.answer_url].filter((l) => l).join('\n')),
  };
}

/** The environment of a command notifier: the fields one by one, and the whole body as JSON. */
export function noticeEnv(n: AskNotice): Record<string, string> {
  return {
    SHOP_NOTIFY_EVENT: n.event,
    SHOP_RUN_ID: String(n.run),
    SHOP_SPEC: n.spec,
    SHOP_CALL: n.call,
    SHOP_ASK: String(n.ask),
    SHOP_HANDLE: n.handle,
    SHOP_AWAITING: n.awaiting,
    SHOP_AGENT: n.agent,
    SHOP_QUESTION: n.question,
    SHOP_ANSWER_WITH: n.answer_with.join('\n'),
    /** Empty when no public URL of shop serve is recorded. */
    SHOP_ANSWER_URL: n.answer_url ?? '',
    SHOP_PROJECT: n.project,
    SHOP_NOTICE_JSON: JSON.stringify(n),
  };
}
