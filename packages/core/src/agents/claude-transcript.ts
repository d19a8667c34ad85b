import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  fstatSync,
  readSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Where Claude Code keeps a session's transcript, as Claude Code 2.1 does it (read from its
 * CLI): `<CLAUDE_CONFIG_DIR, else ~/.claude>/projects/<project dir>/<session id>.jsonl`, the
 * project dir being CLAUDE_CODE_PROJECT_DIR_NAME when set, else the working directory (its
 * real path) with every character but a-z, A-Z, 0-9 turned into `-`, cut at 200 characters
 * plus a hash of the whole path. `claude --resume <id>` looks only there: a session started
 * in another directory, or on another machine, is "No conversation found".
 */
export function transcriptPath(env: NodeJS.ProcessEnv, cwd: string, sessionId: string): string {
  const config = env.CLAUDE_CONFIG_DIR || join(env.HOME || homedir(), '.claude');
  return join(
    config,
    'projects',
    env.CLAUDE_CODE_PROJECT_DIR_NAME || projectDirName(realCwd(cwd)),
    `${sessionId}.jsonl`,
  );
}

const MAX_DIR_NAME = 200;

export function projectDirName(cwd: string): string {
  const name = cwd.replace(/[^a-zA-Z0-9]/g, '-');
  if (name.length <= MAX_DIR_NAME) return name;
  return `${name.slice(0, MAX_DIR_NAME)}-${Math.abs(javaHash(cwd)).toString(36)}`;
}

/** Claude Code's string hash for long directory names (Java's hashCode, 32-bit). */
function javaHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = ((h << 5) - h + s.charCodeAt(i)) | 0;
  return h;
}

/** Each directory's real path, once per process: a step asks for it after every agent step. */
const realPaths = new Map<string, string>();
const REAL_PATHS_KEPT = 256;

/** Claude Code sees its cwd as the process does: symbolic links resolved. */
function realCwd(cwd: string): string {
  const known = realPaths.get(cwd);
  if (known !== undefined) return known;
  let real: string;
  try {
    real = realpathSync(cwd);
  } catch {
    return cwd;
  }
  if (realPaths.size >= REAL_PATHS_KEPT) realPaths.clear();
  realPaths.set(cwd, real);
  return real;
}

/** A transcript as found on this machine: its bytes (when not over `maxBytes`), size and digest. */
export type LocalTranscript =
  { kind: 'missing' } | { kind: 'tooBig'; bytes: number } | { kind: 'ok'; data: Buffer; bytes: number; sha256: string };

/** Reads a transcript, refusing (without reading it) one larger than `maxBytes`. */
export function readTranscript(path: string, maxBytes: number): LocalTranscript {
  // Most steps have none here (another CLI, or a session kept elsewhere): asked without the cost of a thrown error.
  if (!existsSync(path)) return { kind: 'missing' };
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return { kind: 'missing' };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'missing' };
    if (st.size > maxBytes) return { kind: 'tooBig', bytes: st.size };
    const data = Buffer.alloc(st.size);
    let off = 0;
    while (off < data.length) {
      const n = readSync(fd, data, off, data.length - off, off);
      if (n === 0) break;
      off += n;
    }
    const read = data.subarray(0, off);
    return { kind: 'ok', data: read, bytes: read.length, sha256: digest(read) };
  } finally {
    closeSync(fd);
  }
}

export function digest(data: Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Puts a transcript in place atomically (tmp + rename), private like Claude Code's own (0600 in 0700). */
export function writeTranscript(path: string, data: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.shop.tmp`;
  writeFileSync(tmp, data, { mode: 0o600 });
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}
