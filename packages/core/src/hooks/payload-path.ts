import { UsageError } from '../errors.js';
import { quoted } from '../text.js';

/**
 * A dotted path into a JSON payload: `issue.body`, `repository.full_name`, `issue.labels.0.name`.
 * A part is a field name (A-Z a-z 0-9 _ + -; digits index a list), or `*` — any element of a
 * list — which `issue.labels[].name` also spells. Paths are short (200 characters, 16 parts),
 * so following one costs at most the nodes of the payload it walks.
 */
export const MAX_PATH_CHARS = 200;
export const MAX_PATH_PARTS = 16;
/** The part that stands for every element of a list. */
export const ANY_ELEMENT = '*';

const NAME = /^[A-Za-z0-9_+-]+$/;

export interface PayloadPath {
  readonly text: string;
  readonly parts: readonly string[];
}

/** A path checked and split; `anyElement: false` refuses `*` (a value read for a prompt or a key is one value). */
export function parsePayloadPath(text: string, { anyElement = true } = {}): PayloadPath {
  const bad = (why: string) =>
    new UsageError(`the path ${quoted(text, 60)} ${why}; write dotted field names such as issue.labels.*.name`);
  if (text.length === 0) throw bad('is empty');
  if (text.length > MAX_PATH_CHARS) throw bad(`is longer than ${MAX_PATH_CHARS} characters`);
  const parts: string[] = [];
  for (const raw of text.split('.')) {
    const name = raw.endsWith('[]') ? raw.slice(0, -2) : raw;
    if (raw === '' || (name === '' && raw !== '[]')) throw bad('has an empty part');
    if (name !== '' && name !== ANY_ELEMENT && !NAME.test(name))
      throw bad(`has a part ${quoted(raw, 40)} holding a character other than A-Z a-z 0-9 _ + -`);
    if (name !== '') parts.push(name);
    if (raw.endsWith('[]')) parts.push(ANY_ELEMENT);
  }
  if (parts.length > MAX_PATH_PARTS) throw bad(`goes deeper than ${MAX_PATH_PARTS} parts`);
  if (!anyElement && parts.includes(ANY_ELEMENT))
    throw bad('holds * (any element), which names no single value; name one, e.g. issue.labels.0.name');
  return { text, parts };
}

/** Every value the path reaches (several through `*`; none when a part is missing). Own fields only. */
export function valuesAt(payload: unknown, path: PayloadPath): unknown[] {
  const found: unknown[] = [];
  const walk = (node: unknown, i: number): void => {
    if (i === path.parts.length) {
      found.push(node);
      return;
    }
    const part = path.parts[i];
    if (Array.isArray(node)) {
      if (part === ANY_ELEMENT) for (const element of node) walk(element, i + 1);
      else if (/^\d+$/.test(part) && Number(part) < node.length) walk(node[Number(part)], i + 1);
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, part)) {
      walk((node as Record<string, unknown>)[part], i + 1);
    }
  };
  walk(payload, 0);
  return found;
}

/** A prompt read from a payload: at most this many characters (GitHub caps an issue's body at 65,536). */
export const MAX_PAYLOAD_PROMPT_CHARS = 65_536;
/** A key read from a payload: at most this many characters (an event's key is at most 200). */
export const MAX_PAYLOAD_KEY_CHARS = 200;

/**
 * The one value at `path` as text, for `--prompt-from issue.body` or `--key-from
 * repository.full_name`: a string as it is, a number or a boolean as JSON writes it, an object
 * or a list as its JSON text; at most `maxChars` characters (cut, never inside a surrogate
 * pair). Missing or null: undefined. A string path is parsed here (UsageError when bad).
 */
export function valueAt(
  payload: unknown,
  path: string | PayloadPath,
  maxChars = MAX_PAYLOAD_PROMPT_CHARS,
): string | undefined {
  const parsed = typeof path === 'string' ? parsePayloadPath(path, { anyElement: false }) : path;
  if (parsed.parts.includes(ANY_ELEMENT))
    throw new UsageError(`the path ${quoted(parsed.text, 60)} names no single value`);
  const [value] = valuesAt(payload, parsed);
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return capChars(text, maxChars);
}

function capChars(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}
