import { badSeconds, MAX_SLEEP_SECONDS } from './sleep.js';

/** An event's name or key as a workflow gives it: the words `shop event send` takes. */
const WORD = /^[A-Za-z0-9_.:-]{1,200}$/;

const typeOf = (v: unknown) =>
  v === undefined || v === null ? 'nothing' : Array.isArray(v) || typeof v === 'object' ? 'a table' : `a ${typeof v}`;

/**
 * `name [, {key = K, <seconds> = N}]` of wait_event and event_url, read: the name, the key and
 * the number of seconds (`timeout`, `expires`: 0 ≤ N ≤ 366 days), or the error for the line.
 */
export function eventArgs(
  usage: string,
  seconds: 'timeout' | 'expires',
  [name, opts]: unknown[],
): { name: string; key: string | null; seconds: number | null } | string {
  if (typeof name !== 'string') return `${usage}: name must be a string; got ${typeOf(name)}`;
  if (!WORD.test(name))
    return `${usage}: name ${JSON.stringify(name.slice(0, 60))} must be 1-200 of A-Z a-z 0-9 _ . : - (as shop event send takes it)`;
  if (opts == null) return { name, key: null, seconds: null };
  if (typeof opts !== 'object' || Array.isArray(opts))
    return `${usage}: the options must be a table {key = …, ${seconds} = …}; got ${typeOf(opts)}`;
  const o = opts as Record<string, unknown>;
  const unknown = Object.keys(o).find((k) => k !== 'key' && k !== seconds);
  if (unknown !== undefined)
    return `${usage}: unknown option ${JSON.stringify(unknown.slice(0, 60))} (known: key, ${seconds})`;
  let key: string | null = null;
  if (o.key != null) {
    if (typeof o.key !== 'string' || !WORD.test(o.key))
      return `${usage}: key must be 1-200 of A-Z a-z 0-9 _ . : -; got ${typeof o.key === 'string' ? JSON.stringify(o.key.slice(0, 60)) : typeOf(o.key)}`;
    key = o.key;
  }
  if (o[seconds] == null) return { name, key, seconds: null };
  const bad = badSeconds(o[seconds], `${usage}: ${seconds}`);
  if (bad) return bad;
  const n = o[seconds] as number;
  if (n < 0 || n > MAX_SLEEP_SECONDS)
    return `${usage}: ${seconds} must be 0 to ${MAX_SLEEP_SECONDS} seconds (366 days); got ${n}`;
  return { name, key, seconds: n };
}

/** `"ci.finished"` or `"ci.finished", {key = "pr-42"}`: the call's arguments as a person reads them. */
export const eventCallArgs = (name: string, key: string | null) =>
  `"${name}"${key === null ? '' : `, {key = "${key}"}`}`;
