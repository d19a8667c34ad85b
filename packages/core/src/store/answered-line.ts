import { askHandle } from '../decisions/ask-handle.js';
import { localTime } from '../local-time.js';
import type { Answer, RunEvent } from '../types.js';

// First answer wins: the one line every store and operation refuses a second answer with.

/** "run 3 call 6 was already answered approved by alice at …" — for the second answer's error. */
export function alreadyAnswered(a: Answer): string {
  return answeredLine(
    a.runId,
    a.key,
    a.ask,
    a.verdict ?? a.status ?? 'with decisions',
    a.responder,
    a.channel,
    a.answeredAt,
  );
}

/** The same line from the audit trail's human_answered event (also written for answers given in an agent's session). */
export function alreadyAnsweredEvent(e: RunEvent): string {
  const d = e.data ?? {};
  return answeredLine(
    e.runId,
    e.key ?? '?',
    Number(d.ask ?? 1),
    String(d.verdict ?? d.status ?? 'with decisions'),
    e.actor,
    e.channel,
    e.at,
  );
}

function answeredLine(
  runId: number,
  key: string,
  ask: number,
  what: string,
  who: string,
  channel: string,
  at: number,
): string {
  // A verdict "answer" is words for the agent: "answered by ann", not "answered answer by ann".
  // Local time with its offset, as every time the CLI shows.
  return `${askHandle(runId, key, ask || 1)} (run ${runId} call ${key}) was already answered ${what === 'answer' ? '' : `${what} `}by ${who} (${channel}) at ${localTime(at)}`;
}
