import { UsageError, runIdOfHandle } from '@shop/core';
import type { AnsweredJson, InboxRowJson } from '@shop/core';
import { formAnswer } from './page-set.js';
import type { ServerDeps } from './server-deps.js';

/**
 * Records an answer posted from a page: the form is read against the open ask (the pages'
 * formAnswer), core checks and records it (answerAsk: first answer wins), and the run goes on
 * — taken in by its live driver, or resumed in the background by a `shop resume` child. The
 * server itself never drives a run.
 */
export async function answerPosted(
  deps: ServerDeps,
  handle: string,
  form: URLSearchParams,
  channel: 'web' | 'link',
  responder: string,
): Promise<AnsweredJson> {
  const { runId, exec, pending } = await deps.ops.openAsk(handle);
  const parsed = formAnswer(pending, form);
  if (!parsed.ok) throw new UsageError(parsed.error);
  const { answered, handedTo } = await deps.ops.answer(exec, { input: parsed.input, channel, responder });
  if (!handedTo) deps.resumeInBackground(runId);
  return answered;
}

/** The ask a handle names while it is open, as the inbox shows it; null once it is not. */
export async function openAskRow(deps: ServerDeps, handle: string): Promise<InboxRowJson | null> {
  const runId = runIdOfHandle(handle);
  if (runId === null) return null;
  const detail = await deps.ops.runDetail(runId, { last: 0 });
  const open = detail.asks.find((a) => a.handle === handle);
  return open ? { ...open, run: detail.id, spec: detail.spec, run_status: detail.status, parent: detail.parent } : null;
}

/** "Approved 33.4." — what the next page says was recorded. */
export function answeredText(a: AnsweredJson): string {
  const what =
    a.verdict === 'approved'
      ? 'Approved'
      : a.verdict === 'rejected'
        ? 'Rejected'
        : a.decisions
          ? 'Decided'
          : 'Answered';
  return `${what} ${a.handle}${a.message ? `: ${a.message.slice(0, 200)}` : ''} (recorded as ${a.responder})`;
}

/** A name typed on an answer link's page: one short line of printable text. */
export function typedName(raw: string | null): string {
  const name = (raw ?? '').trim();
  if (!name) throw new UsageError('give your name: it is recorded with your answer');
  if (name.length > 80) throw new UsageError('your name is longer than 80 characters; give a shorter one');
  if (/[\p{Cc}\p{Cf}\u2028\u2029]/u.test(name))
    throw new UsageError('your name holds a control character; give a plain name');
  return name;
}
