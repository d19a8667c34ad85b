import { spawn } from 'node:child_process';
import { killGroupAndWait } from '../agents/process-group.js';
import type { ShRequest } from '../lua/requests.js';
import type { ShellResult } from './ports.js';

/** sh() output kept per stream; the rest is dropped and the result says so. */
const SH_OUTPUT_CAP = 1024 * 1024;

/**
 * Runs a workflow's sh() in its own process group (a stop or a timeout kills the whole
 * group and waits for it): a string through /bin/sh, a list as argv without a shell.
 */
export function runShell(req: ShRequest, workspace: string, signal: AbortSignal): Promise<ShellResult> {
  const cwd = req.opts.cwd ? resolveIn(workspace, req.opts.cwd) : workspace;
  const [file, args] = req.argv ? [req.argv[0], req.argv.slice(1)] : ['/bin/sh', ['-c', req.cmd!]];
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = capture(child.stdout!);
    const err = capture(child.stderr!);
    let timedOut = false;
    let killing: Promise<void> | null = null;
    const kill = () => {
      if (child.pid && !killing) killing = killGroupAndWait(child.pid);
    };
    const timer = req.opts.timeout ? setTimeout(() => ((timedOut = true), kill()), req.opts.timeout * 1000) : null;
    if (signal.aborted) kill();
    signal.addEventListener('abort', kill, { once: true });
    const finish = async (code: number, spawnError?: string) => {
      if (timer) clearTimeout(timer);
      signal.removeEventListener('abort', kill);
      if (killing) await killing;
      const result: ShellResult = { code: timedOut ? 124 : code, stdout: out.text(), stderr: spawnError ?? err.text() };
      if (out.cut || err.cut) Object.assign(result, { truncated: true, cap_bytes: SH_OUTPUT_CAP });
      if (timedOut) result.timed_out = true;
      resolve(result);
    };
    child.on('error', (e) => void finish(127, `${file}: ${(e as NodeJS.ErrnoException).code ?? e.message}`));
    child.on('close', (code, sig) => void finish(code ?? (sig ? 128 : 1)));
  });
}

function resolveIn(workspace: string, dir: string): string {
  return dir.startsWith('/') ? dir : `${workspace}/${dir}`;
}

function capture(stream: NodeJS.ReadableStream) {
  const chunks: Buffer[] = [];
  let size = 0;
  let cut = false;
  stream.on('data', (d: Buffer) => {
    if (size >= SH_OUTPUT_CAP) {
      cut = true;
      return;
    }
    const part = d.subarray(0, SH_OUTPUT_CAP - size);
    if (part.length < d.length) cut = true;
    chunks.push(part);
    size += part.length;
  });
  return {
    text: () => Buffer.concat(chunks).toString('utf8'),
    get cut() {
      return cut;
    },
  };
}
