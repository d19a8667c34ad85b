import { UsageError } from '../errors.js';
import { quoted } from '../text.js';
import { parsePayloadPath, type PayloadPath } from './payload-path.js';

/**
 * A hook's `--filter`: conditions separated by spaces, all of which must hold for a delivery to
 * be acted on (start a run, send an event); a delivery it refuses changes nothing.
 *
 *   event=issues action=labeled label.name=agent|shop
 *   issue.labels.*.name="good first issue" !issue.pull_request sender.login!=dependabot[bot]
 *
 * - `PATH=V` holds when a value at PATH is V; `PATH=V1|V2` when it is any of them.
 * - `PATH!=V` (or `!=V1|V2`) holds when no value at PATH is any of them (a missing PATH too).
 * - `PATH` alone holds when PATH is present and not null; `!PATH` when it is missing or null.
 * - PATH is dotted field names into the JSON payload (payload-path.ts); `*` or `name[]` is any
 *   element of a list, so `issue.labels.*.name=agent` holds when one label is named agent.
 *   `event` alone is the event header (X-GitHub-Event / X-Shop-Event), not a payload field.
 * - V is compared as text, exactly (case counts): a string as it is, a number or a boolean as
 *   JSON writes it (`issue.number=42`, `issue.locked=false`), `null` for null; an object or a
 *   list equals nothing. A V with spaces, `|` or quotes goes in double quotes (`\"`, `\\`).
 *
 * Bounded: 1,000 characters, 16 conditions, 16 alternatives per condition, 200 characters a value.
 */
export const MAX_FILTER_CHARS = 1000;
export const MAX_FILTER_CONDITIONS = 16;
export const MAX_FILTER_ALTERNATIVES = 16;
export const MAX_FILTER_VALUE_CHARS = 200;

/** `event`: the event header; otherwise a path into the payload. */
export type FilterTarget = 'event' | PayloadPath;
export type FilterCondition =
  | {
      readonly kind: 'equals';
      readonly target: FilterTarget;
      readonly values: readonly string[];
      readonly negated: boolean;
    }
  | { readonly kind: 'present'; readonly target: FilterTarget; readonly negated: boolean };

export interface HookFilter {
  /** As given: what the store keeps and `shop hook list` shows. */
  readonly text: string;
  readonly conditions: readonly FilterCondition[];
}

const EXAMPLE = 'write conditions such as event=issues action=labeled label.name=agent';

/** A filter checked and parsed; UsageError naming the bad condition otherwise. */
export function parseFilter(text: string): HookFilter {
  if (text.length > MAX_FILTER_CHARS)
    throw new UsageError(`the filter is longer than ${MAX_FILTER_CHARS} characters; ${EXAMPLE}`);
  const words = splitOutsideQuotes(text, /\s/, (why) => new UsageError(`the filter ${why}; ${EXAMPLE}`));
  if (words.length === 0) throw new UsageError(`the filter is empty; ${EXAMPLE}`);
  if (words.length > MAX_FILTER_CONDITIONS)
    throw new UsageError(`the filter has ${words.length} conditions, more than ${MAX_FILTER_CONDITIONS}; ${EXAMPLE}`);
  return { text, conditions: words.map(parseCondition) };
}

function parseCondition(word: string): FilterCondition {
  const bad = (why: string) => new UsageError(`the filter condition ${quoted(word, 60)} ${why}; ${EXAMPLE}`);
  const eq = word.indexOf('=');
  if (eq === -1) {
    const negated = word.startsWith('!');
    return { kind: 'present', target: target(negated ? word.slice(1) : word), negated };
  }
  const negated = word[eq - 1] === '!';
  const path = word.slice(0, negated ? eq - 1 : eq);
  if (path === '') throw bad('names no field before the =');
  if (word[eq + 1] === '=') throw bad('has == (write one =)');
  const values = splitOutsideQuotes(word.slice(eq + 1), /\|/, bad, true).map((v) => unquote(v, bad));
  if (values.length > MAX_FILTER_ALTERNATIVES) throw bad(`gives more than ${MAX_FILTER_ALTERNATIVES} alternatives`);
  return { kind: 'equals', target: target(path), values, negated };
}

const target = (path: string): FilterTarget => (path === 'event' ? 'event' : parsePayloadPath(path));

function unquote(raw: string, bad: (why: string) => UsageError): string {
  let value = raw;
  if (raw.startsWith('"')) {
    value = '';
    let i = 1;
    for (; i < raw.length && raw[i] !== '"'; i++) value += raw[i] === '\\' ? (raw[++i] ?? '') : raw[i];
    if (i !== raw.length - 1) throw bad('has text after a closing quote; quote the whole value');
  } else if (raw === '') throw bad('has an empty value (write "" for an empty string)');
  else if (raw.includes('"')) throw bad('has a quote inside a value; quote the whole value');
  if (value.length > MAX_FILTER_VALUE_CHARS) throw bad(`has a value longer than ${MAX_FILTER_VALUE_CHARS} characters`);
  return value;
}

/**
 * `text` cut at each `separator` outside double quotes (a backslash in quotes escapes the next
 * character); quotes are kept for the caller. Spaces drop empty pieces; `keepEmpty` keeps them.
 */
function splitOutsideQuotes(
  text: string,
  separator: RegExp,
  bad: (why: string) => UsageError,
  keepEmpty = false,
): string[] {
  const pieces: string[] = [];
  let piece = '';
  let inQuotes = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inQuotes && c === '\\' && i + 1 < text.length) {
      piece += c + text[++i];
      continue;
    }
    if (c === '"') inQuotes = !inQuotes;
    if (!inQuotes && separator.test(c)) {
      if (keepEmpty || piece !== '') pieces.push(piece);
      piece = '';
    } else piece += c;
  }
  if (inQuotes) throw bad('has a quote that is never closed');
  if (keepEmpty || piece !== '') pieces.push(piece);
  return pieces;
}
