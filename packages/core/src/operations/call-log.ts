import { closeSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newStreamState, readStreamLine } from '../agents/stream-events.js';
import type { Execution } from '../types.js';

/** The first line, trimmed. */
const oneLine = (text: string | null | undefined): string => (text ?? '').split('\n')[0].trim();

const STDOUT = '.stdout.log';

/** The newest attempt's logs of an agent call: `.shop/runs/<id>/<key, / as ->.<agent>.<attempt>.stdout.log` / `.stderr.log`. */
export function logFiles(runsDir: string, exec: Execution): { stdout: string; stderr: string; attempt: number } | null {
  if (exec.kind !== 'run' || !exec.agent) return null;
  const dir = join(runsDir, String(exec.runId));
  const prefix = `${exec.key.replaceAll('/', '-')}.${exec.agent}.`;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  const attempts = names
    .filter((n) => n.startsWith(prefix) && n.endsWith(STDOUT))
    .map((n) => Number(n.slice(prefix.length, -STDOUT.length)))
    .filter((n) => Number.isInteger(n));
  if (!attempts.length) return null;
  const attempt = Math.max(...attempts);
  return {
    stdout: join(dir, `${prefix}${attempt}${STDOUT}`),
    stderr: join(dir, `${prefix}${attempt}.stderr.log`),
    attempt,
  };
}

/** The last `count` lines of a file, reading at most its last 32 KB; [] when it is missing. */
export function tailLines(file: string, count: number, max = 32 * 1024): string[] {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return [];
  }
  try {
    const size = statSync(file).size;
    const length = Math.min(size, max);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    const lines = buf.toString('utf8').split('\n');
    if (length < size) lines.shift(); // cut mid-line
    return lines.filter((l) => l.trim()).slice(-count);
  } finally {
    closeSync(fd);
  }
}

/**
 * A log line as a person reads it: Claude Code's stream-json events become what the core
 * calls the agent's activity ("Edit src/a.ts", the text it said) or its result; events
 * without news (system, tool results) are skipped. Plain lines (another agent CLI) stay.
 */
export function readableLine(line: string): string | null {
  const text = line.trim();
  if (!text.startsWith('{')) return text || null;
  const state = newStreamState();
  if (!readStreamLine(state, text)) return isJson(text) ? null : text;
  const r = state.result;
  if (r) return `result: ${r.is_error ? 'error' : 'done'}${r.result ? ` — ${oneLine(r.result)}` : ''}`;
  return state.activity;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The readable tail of a call's newest logs: stdout's events, then stderr's lines — what an
 * agent last did and said (the TUI's call panel, a run's detail page). Agents write these
 * files without touching the store, so a front end reads them again as often as it redraws.
 */
export function callLog(runsDir: string, exec: Execution, count: number): { lines: string[]; file: string } | null {
  const files = logFiles(runsDir, exec);
  if (!files) return null;
  const out = tailLines(files.stdout, count * 4)
    .map(readableLine)
    .filter((l): l is string => l !== null);
  const err = tailLines(files.stderr, count).map((l) => `stderr: ${l.trim()}`);
  return { lines: [...out, ...err].slice(-count), file: files.stdout };
}
