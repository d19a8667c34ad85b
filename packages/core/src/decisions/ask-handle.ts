import type { Execution } from '../types.js';

/**
 * An ask's handle: `<run>.<call>` for a call's first ask, `<run>.<call>.<n>` for its n-th
 * (a call that asks again after an answer went back to its agent). Call keys hold digits and
 * `/` only (branch calls: `4/1/2`), never a dot, so `33.4/1/2.2` splits unambiguously. A
 * handle names one ask for good: an answer given by it lands on that ask or is refused.
 */
export interface AskRef {
  runId: number;
  /** The call, or null for a bare run id (its one open ask). */
  key: string | null;
  /** Which of the call's asks (1 = the first); null with a bare run id. */
  ask: number | null;
}

const HANDLE = /^(\d+)(?:\.(\d+(?:\/\d+)*)(?:\.(\d+))?)?$/;
const CALL = /^(\d+(?:\/\d+)*)(?:\.(\d+))?$/;

export function askHandle(runId: number, key: string, ask: number): string {
  return ask > 1 ? `${runId}.${key}.${ask}` : `${runId}.${key}`;
}

/** The handle of a waiting call's current ask. */
export const handleOf = (exec: Pick<Execution, 'runId' | 'key' | 'ask'>): string =>
  askHandle(exec.runId, exec.key, Math.max(1, exec.ask));

/** A plain positive decimal run id ("0x3", "1e3", "-1", " 3" are not), or null. */
export function runIdOf(raw: string): number | null {
  if (!/^\d+$/.test(raw)) return null;
  const id = Number(raw);
  return id > 0 && Number.isSafeInteger(id) ? id : null;
}

/** A handle or a bare run id as typed, or null when it is neither. */
export function parseAskRef(raw: string): AskRef | null {
  const m = HANDLE.exec(raw);
  const runId = m ? runIdOf(m[1]) : null;
  if (!m || runId === null) return null;
  if (m[2] === undefined) return { runId, key: null, ask: null };
  const ask = m[3] === undefined ? 1 : Number(m[3]);
  return ask >= 1 && Number.isSafeInteger(ask) ? { runId, key: m[2], ask } : null;
}

/** The run an ask handle (or a bare run id) names, or null when the text is neither: never a prefix read as a number. */
export function runIdOfHandle(raw: string): number | null {
  return parseAskRef(raw)?.runId ?? null;
}

/** `--call K` or `--call K.N` (the handle's part after the run id), or null when malformed. */
export function parseCallRef(raw: string): { key: string; ask: number } | null {
  const m = CALL.exec(raw);
  if (!m) return null;
  const ask = m[2] === undefined ? 1 : Number(m[2]);
  return ask >= 1 && Number.isSafeInteger(ask) ? { key: m[1], ask } : null;
}
