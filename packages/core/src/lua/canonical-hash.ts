/**
 * A short, stable hash of JSON-able data, with object keys sorted so the order a Lua table
 * happens to iterate in never changes it. Stored in fingerprints: never change the function.
 */
export function canonicalHash(value: unknown): string {
  return hashText(canonical(value));
}

/** The hash of a text already in canonical form. */
export function hashText(text: string): string {
  return cyrb53Hex(text);
}

/** JSON with object keys sorted and undefined members left out. */
export function canonical(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined);
  if (keys.length === 0) return '{}';
  keys.sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * cyrb53 (public domain), a fast 53-bit string hash, as 14 hex digits: those of
 * 2^32 * (h2's low 21 bits) + h1, made 21 + 16 + 16 bits at a time. (Number#toString(16) of
 * the number whole gave the same digits, but a double's digits took ~1 µs a hash.)
 */
function cyrb53Hex(str: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < str.length; i++) {
    const ch = str.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (
    (h2 & 0x1fffff).toString(16).padStart(6, '0') +
    (h1 >>> 16).toString(16).padStart(4, '0') +
    (h1 & 0xffff).toString(16).padStart(4, '0')
  );
}
