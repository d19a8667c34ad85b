import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { describeIssues } from '../lua/issues.js';

export const AWAITING_KINDS = ['input', 'approval', 'review', 'content', 'escalation', 'checkpoint', 'work'] as const;

/** The body an agent writes to SHOP_SIGNAL_FILE (extra fields are kept and passed to Lua). */
export const SignalSchema = z.looseObject({
  status: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_CASE word such as DONE or NEEDS_HUMAN'),
  summary: z.string().optional(),
  reason: z.string().optional(),
  awaiting: z.enum(AWAITING_KINDS).optional(),
});
export type Signal = z.infer<typeof SignalSchema>;

export type SignalRead =
  | { kind: 'none' }
  | { kind: 'invalid'; problem: string }
  | { kind: 'ok'; signal: Signal };

/** `.shop/signals/<run>.<call>.<agent>.json`: keyed by run and call so a stale file is never read as new. */
export function signalPath(signalsDir: string, runId: number, key: string, agent: string): string {
  return join(signalsDir, `${runId}.${key.replaceAll('/', '-')}.${agent}.json`);
}

export function parseSignal(text: string): SignalRead {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'invalid', problem: 'not valid JSON (half-written or malformed)' };
  }
  return checkSignal(data);
}

/** A signal's body, already parsed from JSON, checked. */
export function checkSignal(data: unknown): SignalRead {
  const parsed = SignalSchema.safeParse(data);
  if (!parsed.success) return { kind: 'invalid', problem: describeIssues(parsed.error) };
  return { kind: 'ok', signal: parsed.data };
}

export function readSignal(path: string): SignalRead {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { kind: 'none' };
  }
  return parseSignal(text);
}

/** Writes a signal atomically (tmp + rename) so a watcher never sees half a file. */
export function writeSignal(path: string, signal: Signal): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(signal)}\n`);
  renameSync(tmp, path);
}

/** Ticker fallback: the last `<promise>STATUS: text</promise>` in an agent's final output. */
export function promiseSignal(output: string): Signal | null {
  const tags = [...output.matchAll(/<promise>\s*([A-Z][A-Z0-9_]*)\s*(?::\s*([\s\S]*?))?\s*<\/promise>/g)];
  const last = tags.at(-1);
  if (!last) return null;
  const text = last[2]?.trim();
  const status = last[1];
  if (!text) return { status };
  return status === 'NEEDS_HUMAN' ? { status, reason: text } : { status, summary: text };
}
