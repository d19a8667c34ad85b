/**
 * The request headers a hook is judged by, as node:http hands them over (names in lower case,
 * a repeated header as an array) or as a test writes them (any case). Only a handful of named
 * headers are ever read, each bounded by whoever reads it.
 */
export type HookHeaders = Readonly<Record<string, string | readonly string[] | undefined>>;

/**
 * One header's value, its name matched without regard to case; absent: undefined. A header
 * sent more than once comes back joined with ", " (as node:http joins unknown headers), so a
 * strict format check refuses it rather than picking one of the copies.
 */
export function headerValue(headers: HookHeaders, name: string): string | undefined {
  const lower = name.toLowerCase();
  let value = Object.hasOwn(headers, lower) ? headers[lower] : undefined;
  if (value === undefined) {
    const key = Object.keys(headers).find((k) => k.toLowerCase() === lower);
    value = key === undefined ? undefined : headers[key];
  }
  if (value === undefined) return undefined;
  return typeof value === 'string' ? value : value.join(', ');
}
