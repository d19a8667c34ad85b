/**
 * What makes two plays of one scenario comparable across stores: the --json documents with
 * the values that differ between any two plays (times, seeds, pids, tokens, session ids, the
 * project's folder) replaced by placeholders.
 */

const ISO = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
/** Values that differ between any two plays, on any store. */
const VOLATILE = new Set([
  'seed',
  'pid',
  'pid_start',
  'token',
  'waited_ms',
  'age_ms',
  'duration_ms',
  'elapsed_ms',
  'driver_pid',
  // A kept session's gzip size varies with what its transcript holds (times, ids), not with the store.
  'stored_bytes',
]);

export function normalise(value: unknown, dir: string): unknown {
  if (typeof value === 'string') return value.replaceAll(dir, '<dir>').replace(ISO, '<time>').replace(UUID, '<uuid>');
  if (Array.isArray(value)) return value.map((v) => normalise(v, dir));
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, VOLATILE.has(k) && v !== null ? `<${k}>` : normalise(v, dir)]),
    );
  }
  return value;
}
