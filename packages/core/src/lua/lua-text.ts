import { size } from './string-limits.js';

const decoder = new TextDecoder('utf-8');

/**
 * Lua bytes as JS text, the first `maxBytes` of them at most, cut where a UTF-8 character
 * starts; bytes that are not UTF-8 show as U+FFFD. Decoding a whole Lua string first made
 * a JS string of it: 200 MiB logged aborted Node (heap out of memory).
 */
export function luaText(bytes: Uint8Array, maxBytes: number): string {
  if (bytes.length <= maxBytes) return decoder.decode(bytes);
  let end = maxBytes;
  // Back over continuation bytes (10xxxxxx) to the start of the character the cut splits.
  for (let back = 0; back < 3 && end > 0 && (bytes[end] & 0xc0) === 0x80; back++) end--;
  return decoder.decode(bytes.subarray(0, end));
}

/** Bytes a log()/print() line keeps; the rest is cut, and the line says how long it was. */
export const LOG_LINE_BYTES = 64 * 1024;

/** One log line from its parts (already Lua strings), joined by tabs and cut at LOG_LINE_BYTES. */
export function logLine(parts: Uint8Array[]): string {
  const total = parts.reduce((n, p) => n + p.length, 0) + Math.max(0, parts.length - 1);
  const joined = new Uint8Array(Math.min(total, LOG_LINE_BYTES + 4));
  let at = 0;
  for (const [i, part] of parts.entries()) {
    if (i > 0 && at < joined.length) joined[at++] = 9;
    const take = part.subarray(0, joined.length - at);
    joined.set(take, at);
    at += take.length;
    if (at >= joined.length) break;
  }
  if (total <= LOG_LINE_BYTES) return decoder.decode(joined.subarray(0, total));
  return `${luaText(joined, LOG_LINE_BYTES)}… [cut: the line had ${size(total)}; a log line keeps its first 64 KiB]`;
}
