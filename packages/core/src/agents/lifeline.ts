import { spawn } from 'node:child_process';

/**
 * The watchdog a driver starts beside each agent so the agent dies with its driver. An agent
 * runs in a process group of its own, its output in files: when its driver is killed -9 (or its
 * machine's worker dies alone), nothing else would end it, and another machine that takes the
 * run over would resume the same session while the old agent still works — two agents on one
 * call. The watchdog is a tiny `sh` in a group of its own, reading a pipe only this process
 * holds open: the kernel closes that pipe when this process dies, however it dies, and the
 * watchdog then ends the agent's group (TERM, then KILL after a grace). When the agent ends as
 * usual, `cut()` kills the watchdog first, so it never signals a group id reused since.
 */
const WATCHDOG = [
  'read _ignored',
  // The driver is gone (end of file) — or the pipe was closed on purpose; the group may have ended.
  'kill -TERM -"$1" 2>/dev/null || exit 0',
  'i=0',
  'while [ $i -lt 50 ] && kill -0 -"$1" 2>/dev/null; do sleep 0.1; i=$((i+1)); done',
  'kill -KILL -"$1" 2>/dev/null',
  'exit 0',
].join('\n');

export interface Lifeline {
  /** The agent ended as usual: the watchdog goes, touching nothing. */
  cut(): void;
}

/** Ties the process group `pgid` (an agent this process started detached) to this process's life. */
export function tieToThisProcess(pgid: number): Lifeline {
  let child;
  try {
    child = spawn('sh', ['-c', WATCHDOG, 'shop-lifeline', String(pgid)], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
  } catch {
    // No sh to start: the agent is still ended by a later resume's orphan check, as before.
    return { cut() {} };
  }
  child.on('error', () => undefined);
  child.stdin?.on('error', () => undefined);
  // Neither the watchdog nor its pipe keeps this process alive.
  child.unref();
  (child.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  return {
    cut() {
      try {
        child.kill('SIGKILL');
      } catch {
        /* already gone */
      }
      child.stdin?.destroy();
    },
  };
}
