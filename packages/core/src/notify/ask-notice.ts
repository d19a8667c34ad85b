/**
 * What Shop tells people when a run needs them: the documented body of a webhook POST, the
 * environment of a command notifier, the text of a desktop or Slack note.
 */
export interface AskNotice {
  /** new: a call started waiting; reminder / escalation: a timer fired; timeout: on_timeout = notify_again. */
  event: 'waiting' | 'reminder' | 'escalation' | 'timeout';
  run: number;
  spec: string;
  call: string;
  /** Which time this call waits (answers are per ask). */
  ask: number;
  /** The ask's handle ("3.4", "3.4.2"): what the answering commands take. */
  handle: string;
  /** input | approval | review | content | escalation | checkpoint | work. */
  awaiting: string;
  /** The agent that asks, or _checkpoint for a pause(). */
  agent: string;
  question: string;
  /** Exact commands that answer it, each naming the ask by handle, e.g. "shop approve 3.1/2/1". */
  answer_with: string[];
  /**
   * The ask's answer link (`<public URL>/a/<token>`: answers exactly this ask, signed, expires
   * in 7 days) when a public URL of shop serve is recorded in the store; otherwise null.
   */
  answer_url: string | null;
  /** How long it has waited, in seconds. */
  waited_seconds: number;
  project: string;
  /** ISO 8601 with offset. */
  at: string;
}

/** Where a notice goes: a `notify = {…}` entry, parsed. */
export type NotifyTarget =
  | { kind: 'desktop' }
  | { kind: 'webhook'; url: string }
  | { kind: 'slack'; url: string }
  | { kind: 'command'; argv: string[] };

/** What became of one notice to one target; failures never break a run. */
export type NotifyResult = { ok: true; target: string } | { ok: false; target: string; error: string };
