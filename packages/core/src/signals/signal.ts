import { randomUUID } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { describeIssues } from '../lua/issues.js';
import { nestingDepth, readAgentFile } from './agent-file.js';

export const AWAITING_KINDS = ['input', 'approval', 'review', 'content', 'escalation', 'checkpoint', 'work'] as const;

/** How many options an agent's question may offer, and how long each may be. */
export const CHOICES_MAX = 20;
export const CHOICE_MAX_CHARS = 200;

/** The body an agent writes to SHOP_SIGNAL_FILE (extra fields are kept and passed to Lua). */
const SignalSchema = lazySchema(() =>
  z.looseObject({
    status: z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'must be an UPPER_CASE word such as DONE or NEEDS_HUMAN'),
    summary: z.string().optional(),
    reason: z.string().optional(),
    awaiting: z.enum(AWAITING_KINDS).optional(),
    /** A NEEDS_HUMAN's options for the person (Shop's MCP `ask`): the ask is then a choice among them. */
    choices: z
      .array(z.string().trim().min(1, 'a choice may not be empty').max(CHOICE_MAX_CHARS))
      .min(1)
      .max(CHOICES_MAX)
      .optional(),
  }),
);
export type Signal = z.infer<typeof SignalSchema>;

export type SignalRead = { kind: 'none' } | { kind: 'invalid'; problem: string } | { kind: 'ok'; signal: Signal };

/**
 * How deep a signal may nest (the signal itself is level 1). Its value crosses into Lua,
 * where a script may nest it further under the 200 levels any Lua↔JS value may have.
 */
export const SIGNAL_MAX_DEPTH = 100;

/**
 * A person's answer has these; an agent's report never gives them (a signal saying
 * `"verdict":"approved","responder":"alice"` must not read as alice's approval).
 */
export const ANSWER_FIELDS = ['verdict', 'responder', 'channel'] as const;

/**
 * `.shop/signals/<run>.<call>.<agent>.<nonce>.json`: keyed by run and call so a stale file
 * is never read as new, and a fresh random nonce per invocation, so no other process (another
 * run's agent) can guess where this one reports. The path is recorded with the execution.
 */
export function signalPath(signalsDir: string, runId: number, key: string, agent: string): string {
  return join(signalsDir, `${runId}.${key.replaceAll('/', '-')}.${agent}.${nonce()}.json`);
}

/**
 * 24 hex digits (94 random bits: not its version digit) from a v4 UUID — Node hands those out of a pre-filled pool,
 * where randomBytes asks the system's generator every time.
 */
function nonce(): string {
  const u = randomUUID();
  return u.slice(0, 8) + u.slice(9, 13) + u.slice(15, 18) + u.slice(19, 23) + u.slice(24, 29);
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

/** A signal's body, already parsed from JSON, checked: its depth, its fields, no answer-like ones. */
export function checkSignal(data: unknown): SignalRead {
  // Before zod or anything else walks it: a 100,000-level signal overflows the stack of
  // every recursive walker (JSON.stringify into the store, the conversion to Lua).
  if (nestingDepth(data, SIGNAL_MAX_DEPTH) > SIGNAL_MAX_DEPTH)
    return { kind: 'invalid', problem: `is nested more than ${SIGNAL_MAX_DEPTH} levels deep` };
  const parsed = SignalSchema.safeParse(data);
  if (!parsed.success) return { kind: 'invalid', problem: describeIssues(parsed.error) };
  const signal: Signal = { ...parsed.data };
  for (const field of ANSWER_FIELDS) delete signal[field];
  return { kind: 'ok', signal };
}

/** The signal at `path`, read as a file an agent controls (see readAgentFile). */
export function readSignal(path: string): SignalRead {
  const read = readAgentFile(path);
  if (read.kind === 'none') return read;
  if (read.kind === 'refused') return { kind: 'invalid', problem: read.problem };
  return parseSignal(read.text);
}

/** Writes a signal atomically (tmp + rename) so a watcher never sees half a file. */
export function writeSignal(path: string, signal: Signal): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(signal)}\n`);
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
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
