import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';

/**
 * Everything a notifier touches outside the process, passed in so tests can use a real
 * local server and a real script, or fakes, without a global to patch.
 */
export interface NoticeDeps {
  fetch: typeof fetch;
  /**
   * Runs argv without a shell, stdin ignored, `env` added to the inherited environment.
   * Resolves with the exit code (null when killed by a signal) and what it wrote to stderr;
   * rejects with a NoticeCommandError when it cannot start or runs past `timeoutMs`.
   */
  runCommand(
    argv: string[],
    env: Record<string, string>,
    timeoutMs: number,
  ): Promise<{ code: number | null; stderr: string }>;
  /** The executable `program` would run as (a PATH lookup unless it holds a "/"), or null. */
  which(program: string): string | null;
  /** One line for the person at the terminal. */
  note(line: string): void;
  sleep(ms: number): Promise<void>;
}

/** A command notifier that could not start or did not finish in time. */
export class NoticeCommandError extends Error {
  constructor(
    readonly reason: 'missing' | 'timeout' | 'spawn',
    readonly program: string,
    message: string,
  ) {
    super(message);
  }
}

/** Only the end of stderr is kept: the last line is what gets reported. */
const STDERR_KEEP = 8192;
/** After exit, how long to wait for stderr to close (a background grandchild may hold it). */
const CLOSE_GRACE_MS = 250;

export function nodeNoticeDeps(): NoticeDeps {
  return {
    fetch: (input, init) => fetch(input, init),
    runCommand,
    which,
    note: (line) => void process.stderr.write(`${line}\n`),
    sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
  };
}

function runCommand(
  argv: string[],
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stderr: string }> {
  const [program = '', ...args] = argv;
  return new Promise((done, fail) => {
    let stderr = '';
    let settled = false;
    const settle = (f: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      f();
    };
    // Own process group, so a timeout kills what the notifier started too.
    const child = spawn(program, args, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      shell: false,
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    const timer = setTimeout(() => {
      killGroup();
      settle(() =>
        fail(new NoticeCommandError('timeout', program, `${program} did not finish within ${timeoutMs / 1000} s`)),
      );
    }, timeoutMs);
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (d: string) => {
      stderr = (stderr + d).slice(-STDERR_KEEP);
    });
    child.on('error', (e: NodeJS.ErrnoException) => {
      const missing = e.code === 'ENOENT';
      const why = missing ? `${program} was not found` : `${program} could not start (${e.code ?? e.message})`;
      settle(() => fail(new NoticeCommandError(missing ? 'missing' : 'spawn', program, why)));
    });
    child.on('exit', (code) => {
      setTimeout(() => settle(() => done({ code, stderr })), CLOSE_GRACE_MS);
    });
    child.on('close', (code) => settle(() => done({ code, stderr })));
  });
}

function which(program: string): string | null {
  if (program.includes('/')) return isExecutable(resolve(program)) ? resolve(program) : null;
  // Empty PATH entries (meaning ".") are skipped: a notifier should not run from the cwd by accident.
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, program);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
