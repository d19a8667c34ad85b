import { createHash } from 'node:crypto';
import type { Run } from '../types.js';

/** What names a run for ever, in every process that reads it from its store. */
type RunIdentity = Pick<Run, 'id' | 'createdAt' | 'seed'>;

/** A run's trace: its id, and its root span's (the run itself). */
export interface RunTrace {
  traceId: string;
  rootSpanId: string;
}

/**
 * Ids are derived, never kept: a run suspends for days and resumes in another process, which
 * must export its spans into the same trace under the same root. The run's id, creation time
 * and seed are the same wherever it is read, and tell it from another store's run of that id.
 */
function derived(run: RunIdentity, part: string, hexChars: number): string {
  const id = createHash('sha256')
    .update(`shop-run\0${run.id}\0${run.createdAt}\0${run.seed}\0${part}`)
    .digest('hex')
    .slice(0, hexChars);
  // An id of all zeros is invalid in W3C trace context.
  return /^0+$/.test(id) ? `${id.slice(0, -1)}1` : id;
}

export function runTrace(run: RunIdentity): RunTrace {
  return { traceId: derived(run, 'trace', 32), rootSpanId: derived(run, 'root', 16) };
}

/** A span of one of its calls: `part` tells the span apart within the call (an attempt, an ask). */
export function callSpanId(run: RunIdentity, key: string, part: string): string {
  return derived(run, `call\0${key}\0${part}`, 16);
}

/** The span of an agent call's attempt: its process is given it as TRACEPARENT before it starts. */
export const attemptPart = (attempt: number): string => `attempt:${attempt}`;
export const askPart = (ask: number): string => `ask:${ask}`;

/** W3C trace context: version 00, sampled. */
export function traceparent(traceId: string, spanId: string): string {
  return `00-${traceId}-${spanId}-01`;
}

/** The TRACEPARENT an agent's attempt runs under (its span's parent in the agent's own telemetry). */
export function attemptTraceparent(run: RunIdentity, key: string, attempt: number): string {
  return traceparent(runTrace(run).traceId, callSpanId(run, key, attemptPart(attempt)));
}
