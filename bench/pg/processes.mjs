// Worker processes for the PostgreSQL comparison: spawned, awaited until they say they are
// ready, killed by pid (SIGTERM to stop, SIGKILL to crash), and always reaped.
import { spawn } from 'node:child_process';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Spawns `argv` and resolves once a line of its stdout matches `ready` (a RegExp). Its
 * output is kept for error messages; `stop()` ends it with SIGTERM (SIGKILL after 5 s),
 * `crash()` with SIGKILL, and both resolve once it has exited.
 */
export async function startProcess(argv, { cwd, env, ready, what }) {
  const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out = (out + d).slice(-20000)));
  child.stderr.on('data', (d) => (out = (out + d).slice(-20000)));
  const exited = new Promise((resolve) => child.on('close', resolve));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not get ready in 60 s: ${out.slice(-1500)}`)), 60_000);
    const check = () => {
      if (ready.test(out)) {
        clearTimeout(timer);
        child.stdout.off('data', check);
        resolve();
      }
    };
    child.stdout.on('data', check);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${what} exited ${code} before it was ready: ${out.slice(-1500)}`));
    });
  });
  const end = async (sig) => {
    if (child.exitCode === null && child.signalCode === null) child.kill(sig);
    const late = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(late);
  };
  return { pid: child.pid, output: () => out, stop: () => end('SIGTERM'), crash: () => end('SIGKILL') };
}

/** Stops every process in `list` (ignoring ones already gone). */
export async function stopAll(list) {
  await Promise.allSettled(list.map((p) => p.stop()));
}

/** Polls `fn` every `everyMs` until it returns a truthy value (which it resolves to), or throws after `timeoutMs`. */
export async function until(fn, { everyMs = 5, timeoutMs = 120_000, what = 'a condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(everyMs);
  }
}
