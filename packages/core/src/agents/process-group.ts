import { ConflictError } from '../errors.js';
import { readdirSync, readFileSync } from 'node:fs';

/** True when the process (or, for a negative pid, any of the group) still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When a process started (clock ticks since boot, from /proc/<pid>/stat), so a pid the
 * system has since given to another process is never mistaken for it. Null where /proc
 * is not available (macOS): there the pid alone is all we can check.
 */
export function processStart(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** The process `pid` is alive and is the one that started at `start` (when that is known). */
export function sameProcess(pid: number, start: string | null): boolean {
  if (!isAlive(pid)) return false;
  if (start == null) return true;
  const now = processStart(pid);
  return now == null || now === start;
}

/**
 * Whether any process of the group still runs. A zombie does not: a killed agent whose
 * parent is stopped (SIGSTOP) stays a zombie until that parent runs again, yet it is gone.
 */
export function groupAlive(pgid: number): boolean {
  if (!isAlive(-pgid)) return false;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return true;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z') return true;
    } catch {
      /* gone meanwhile */
    }
  }
  return false;
}

function signalGroup(pid: number, sig: NodeJS.Signals) {
  try {
    process.kill(-pid, sig);
  } catch {
    /* already gone */
  }
}

/**
 * Kills a detached child's whole process group and waits until it is gone: TERM, then KILL
 * after the grace period, then a last wait for the KILL to take.
 */
export async function killGroupAndWait(pid: number, graceMs = 2000): Promise<void> {
  if (!groupAlive(pid)) return;
  signalGroup(pid, 'SIGTERM');
  const sleep = () => new Promise((r) => setTimeout(r, 25));
  const graceEnd = Date.now() + graceMs;
  while (groupAlive(pid) && Date.now() < graceEnd) await sleep();
  if (!groupAlive(pid)) return;
  signalGroup(pid, 'SIGKILL');
  const end = Date.now() + 5000;
  while (groupAlive(pid) && Date.now() < end) await sleep();
}

/**
 * Ends every process an earlier holder left on a session and waits until each group is gone:
 * the recorded agent's group (only if its leader is still that process: pid + start time),
 * and — so an agent spawned just before its driver died, its pid never recorded, is found
 * too — every process of this user whose environment names the session (Linux /proc).
 * Throws when one will not go: nothing may be started on the session beside it. True when
 * something was found running on the session (it was started, so its session may exist).
 */
export async function killOrphanGroup(
  pid: number | null,
  start: string | null,
  sessionId?: string | null,
): Promise<boolean> {
  const groups = new Set<number>();
  // The leader may be gone while the group lives on (its pid is not given to another process
  // while the group lives). A live leader must be the process recorded: its start time matches —
  // or, where /proc gives start times but none was recorded (the agent had ended before it could
  // be read), it is another process that has the pid now.
  if (pid && (!isAlive(pid) || (start !== null ? sameProcess(pid, start) : !startTimesKnown()))) groups.add(pid);
  if (sessionId) for (const g of sessionGroups(sessionId)) groups.add(g);
  const found = [...groups].some(groupAlive);
  await Promise.all([...groups].map((g) => killGroupAndWait(g)));
  const left = [...groups].filter(groupAlive);
  if (left.length)
    throw new ConflictError(
      `the agent process group ${left.join(', ')} left on session ${sessionId ?? '?'} would not end; end it (kill -9 -${left[0]}) and resume again`,
    );
  return found;
}

/** Whether this system gives processes' start times (Linux /proc): then a pid recorded without one was already gone. */
function startTimesKnown(): boolean {
  return processStart(process.pid) !== null;
}

/** The process groups (never this process's own) of processes whose environment has SHOP_SESSION_ID=<sessionId>. */
function sessionGroups(sessionId: string): number[] {
  const own = groupOf(process.pid);
  const groups = new Set<number>();
  for (const pid of pidsWithEnv('SHOP_SESSION_ID', sessionId)) {
    const g = groupOf(pid);
    if (g && g !== own) groups.add(g);
  }
  return [...groups];
}

/** The live processes (never this one) whose environment has name=value (Linux /proc; elsewhere none). */
export function pidsWithEnv(name: string, value: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const needle = Buffer.from(`\0${name}=${value}\0`);
  const self = process.pid;
  const found: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === self) continue;
    try {
      const env = Buffer.concat([Buffer.from('\0'), readFileSync(`/proc/${entry}/environ`), Buffer.from('\0')]);
      if (env.includes(needle) && groupOf(Number(entry)) !== null) found.push(Number(entry));
    } catch {
      /* not ours to read, or gone meanwhile */
    }
  }
  return found;
}

/**
 * Kills (SIGKILL) every process an agent step left whose environment carries its marker
 * (SHOP_STEP=<marker>), again until none is found: one may have forked while the others died.
 * Where the step had no PID namespace, this is what finds a leftover that left its process group.
 */
export function killMarked(marker: string): void {
  for (let round = 0; round < 20; round++) {
    const left = pidsWithEnv('SHOP_STEP', marker);
    if (!left.length) return;
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone meanwhile */
      }
    }
  }
}

function groupOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return state === 'Z' ? null : Number(pgrp);
  } catch {
    return null;
  }
}
