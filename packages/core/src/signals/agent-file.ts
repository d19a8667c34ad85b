import { closeSync, constants, fstatSync, openSync, readSync, type Stats } from 'node:fs';

/** The most a signal (or any file Shop reads from an agent) may hold: far past any report, far below harm. */
export const AGENT_FILE_CAP = 1024 * 1024;

type AgentFileRead = { kind: 'none' } | { kind: 'refused'; problem: string } | { kind: 'text'; text: string };

/** "1 MiB" for the cap in messages. */
export function capName(cap: number): string {
  return cap % (1024 * 1024) === 0 ? `${cap / (1024 * 1024)} MiB` : `${cap} bytes`;
}

/**
 * Reads a file an agent controls without trusting what it is: never through a symbolic
 * link (O_NOFOLLOW: a link to /dev/zero would be read forever), never blocking (O_NONBLOCK:
 * a FIFO would wait for a writer that never comes, deaf to SIGTERM), only a regular file,
 * and never more than `cap` bytes (the file may still grow while it is read).
 */
export function readAgentFile(path: string, cap = AGENT_FILE_CAP): AgentFileRead {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    if (code === 'ELOOP') return { kind: 'refused', problem: 'is a symbolic link; it must be a regular file' };
    return { kind: 'refused', problem: `cannot be read (${code ?? (e as Error).message})` };
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return { kind: 'refused', problem: `is ${whatItIs(stat)}; it must be a regular file` };
    const tooBig = {
      kind: 'refused' as const,
      problem: `is larger than ${capName(cap)} (the cap for a file an agent writes)`,
    };
    if (stat.size > cap) return tooBig;
    const buf = Buffer.alloc(Math.min(stat.size, cap) + 1);
    let length = 0;
    for (;;) {
      if (length === buf.length) return tooBig;
      const n = readSync(fd, buf, length, buf.length - length, length);
      if (n === 0) break;
      length += n;
    }
    return { kind: 'text', text: buf.toString('utf8', 0, length) };
  } finally {
    closeSync(fd);
  }
}

function whatItIs(stat: Stats): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isDirectory()) return 'a directory';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

/** How many levels `value` nests (a scalar 0, `{}` 1), counted without recursion; stops past `max`. */
export function nestingDepth(value: unknown, max: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    deepest = Math.max(deepest, depth);
    if (deepest > max) return deepest;
    for (const child of Object.values(v))
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * A file a person names (`shop signal --answers-file F`): links and pipes are fine (`<(…)`),
 * but never more than `cap` bytes — `--answers-file /dev/zero` must not fill the memory.
 * Throws the system's error (ENOENT …) for the caller to name.
 */
export function readCappedFile(path: string, cap = AGENT_FILE_CAP): { text: string } | { tooBig: true } {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(cap + 1);
    let length = 0;
    while (length < buf.length) {
      const n = readSync(fd, buf, length, buf.length - length, null);
      if (n === 0) return { text: buf.toString('utf8', 0, length) };
      length += n;
    }
    return { tooBig: true };
  } finally {
    closeSync(fd);
  }
}

/**
 * The last `maxBytes` of a log an agent writes (its stdout, its stderr): what Shop needs is
 * at the end (the final result, the last error line), and the whole may be gigabytes.
 * '' when it is missing or not a regular file.
 */
export function readTail(path: string, maxBytes = 8 * 1024 * 1024): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return '';
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) return '';
    const length = Math.min(stat.size, maxBytes);
    const buf = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, buf, got, length - got, stat.size - length + got);
      if (n === 0) break;
      got += n;
    }
    return buf.toString('utf8', 0, got);
  } finally {
    closeSync(fd);
  }
}
