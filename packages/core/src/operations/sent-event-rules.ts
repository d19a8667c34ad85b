import { UsageError } from '../errors.js';
import { quoted } from '../text.js';

/**
 * What a sent event may hold, checked before anything is recorded: names and keys are short
 * words (they appear in workflows, URLs and lines on a terminal), data one JSON value of at most
 * 1 MiB (it crosses into a workflow's Lua), an idempotency id a short printable token.
 */
export const MAX_EVENT_DATA_BYTES = 1024 * 1024;
const WORD = /^[A-Za-z0-9_.:-]{1,200}$/;
const SEND_ID = /^[\x21-\x7e]{1,200}$/;

/** An event's name (or `what`: its key): 1–200 of A–Z a–z 0–9 _ . : - ; UsageError otherwise. */
export function checkEventWord(value: string, what: 'name' | 'key'): string {
  if (WORD.test(value)) return value;
  const why =
    value.length === 0
      ? 'is empty'
      : value.length > 200
        ? 'is longer than 200 characters'
        : 'holds a character other than A-Z a-z 0-9 _ . : -';
  throw new UsageError(
    `the event ${what} ${quoted(value, 60)} ${why}; give a word such as ${what === 'name' ? 'ci.finished' : 'pr-42'}`,
  );
}

/** A sender's idempotency id: 1–200 printable characters without spaces. */
export function checkSendId(value: string): string {
  if (SEND_ID.test(value)) return value;
  throw new UsageError(
    `the event id ${quoted(value, 60)} must be 1-200 printable characters without spaces (a delivery id, a UUID)`,
  );
}

/** JSON text a person gave (`--data`, a file), parsed; `from` names where it came from in the one line. */
export function parseEventData(text: string, from: string): unknown {
  if (Buffer.byteLength(text, 'utf8') > MAX_EVENT_DATA_BYTES) throw tooBig(from);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UsageError(
      `${from} is not JSON; give one JSON value, e.g. {"ok": true} (text goes in double quotes: "passed")`,
    );
  }
}

/** The JSON text of data to record: at most MAX_EVENT_DATA_BYTES, else UsageError. */
export function eventDataJson(data: unknown, from: string): string {
  const text = JSON.stringify(data);
  if (Buffer.byteLength(text, 'utf8') > MAX_EVENT_DATA_BYTES) throw tooBig(from);
  return text;
}

const tooBig = (from: string) =>
  new UsageError(`${from} is larger than 1 MiB, the most an event's data may hold; send less (a link to the rest)`);
