import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { AGENT_HOST_NAME } from './agent-host-source.js';
import { STEP_INIT_NAME } from './step-init-name.js';

/**
 * The variables Shop gives an agent step (engine/agent-step.ts agentEnv, agent-host.ts SHOP_STEP,
 * and a `shop continue` session's): any one of them in a process's environment makes it part of
 * a step.
 */
const STEP_MARKERS = [
  'SHOP_AGENT',
  'SHOP_RUN_ID',
  'SHOP_CALL',
  'SHOP_SIGNAL_FILE',
  'SHOP_SESSION_ID',
  'SHOP_STEP',
] as const;

/** How far up the ancestry is walked (a chain of processes is never this deep by accident). */
const MAX_ANCESTORS = 64;

/**
 * Why this process runs inside an agent step — by any sign the machine shows — or null when
 * nothing says so (a person's terminal, a service). What gives a step away, first found first:
 *
 * - a step marker in this process's own environment (`SHOP_AGENT=coder`);
 * - an ancestor (parents walked through /proc/<pid>/stat up to the machine's init) that is Shop's
 *   agent host or an agent step's init, or whose environment has a step marker — so `env -u` and
 *   `env -i` do not hide a command the agent's shell runs;
 * - running in a PID namespace whose init is an agent step's (a leftover that double-forked and
 *   cleared its environment is reparented to that init, pid 1 of the step's own /proc, so it is
 *   an ancestor too; this covers a process put in the namespace from outside, whose /proc is the
 *   machine's).
 *
 * Without /proc (macOS) only the environment is seen. `proc` is for tests.
 */
export function insideAgentStep(env: NodeJS.ProcessEnv, proc = '/proc'): string | null {
  for (const name of STEP_MARKERS) if (env[name]) return `${name}=${shortValue(env[name])}`;
  return byAncestry(proc) ?? byNamespace(proc);
}

function byAncestry(proc: string): string | null {
  let pid = statOf(proc, 'self')?.ppid ?? 0;
  // Up to pid 1 included: in a step's PID namespace (its own /proc) that is the step's init.
  for (let depth = 0; pid >= 1 && depth < MAX_ANCESTORS; depth++) {
    const why = stepProcess(proc, pid);
    if (why) return `its ancestor ${why}`;
    if (pid === 1) break;
    pid = statOf(proc, String(pid))?.ppid ?? 0;
  }
  return null;
}

/** Inside a PID namespace below the machine's: the one whose init is an agent step's. */
function byNamespace(proc: string): string | null {
  const depth = nsDepth(proc, 'self');
  if (depth <= Math.max(1, nsDepth(proc, '1'))) return null;
  const ns = link(`${proc}/self/ns/pid`);
  if (!ns) return null;
  for (const name of entries(proc)) {
    if (link(`${proc}/${name}/ns/pid`) !== ns || nsPids(proc, name).at(-1) !== '1') continue;
    const why = stepProcess(proc, Number(name));
    return why ? `it runs in the PID namespace of an agent step, whose init ${why}` : null;
  }
  return null;
}

/** What makes process `pid` part of an agent step, or null. */
function stepProcess(proc: string, pid: number): string | null {
  const argv = read(`${proc}/${pid}/cmdline`)?.split('\0') ?? [];
  if (argv[1] === '-e' && argv[3] === AGENT_HOST_NAME)
    return `process ${pid} is Shop's agent host (${AGENT_HOST_NAME})`;
  if (argv[1] === '-c' && argv[3] === STEP_INIT_NAME)
    return `process ${pid} is an agent step's init (${STEP_INIT_NAME})`;
  const environ = read(`${proc}/${pid}/environ`);
  if (!environ) return null;
  const vars = environ.split('\0');
  for (const name of STEP_MARKERS) {
    const found = vars.find((v) => v.startsWith(`${name}=`) && v.length > name.length + 1);
    if (found)
      return `process ${pid} (${statOf(proc, String(pid))?.comm ?? '?'}) has ${name}=${shortValue(found.slice(name.length + 1))}`;
  }
  return null;
}

function statOf(proc: string, pid: string): { comm: string; ppid: number } | null {
  const stat = read(`${proc}/${pid}/stat`);
  if (!stat) return null;
  // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
  const close = stat.lastIndexOf(')');
  const comm = stat.slice(stat.indexOf('(') + 1, close).slice(0, 32);
  const ppid = Number(stat.slice(close + 2).split(' ')[1]);
  return Number.isInteger(ppid) ? { comm, ppid } : null;
}

/** This process's pids from the /proc mount's namespace down to its own (`NSpid:` of status). */
function nsPids(proc: string, pid: string): string[] {
  const line = read(`${proc}/${pid}/status`)
    ?.split('\n')
    .find((l) => l.startsWith('NSpid:'));
  return line ? line.slice(6).trim().split(/\s+/) : [];
}

const nsDepth = (proc: string, pid: string) => nsPids(proc, pid).length;

/** A value as a one-line error shows it: short (a path or a session id is not needed whole). */
function shortValue(value: string | undefined): string {
  const v = String(value ?? '');
  return v.length > 40 ? `${v.slice(0, 37)}…` : v;
}

function read(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

function link(file: string): string | null {
  try {
    return readlinkSync(file);
  } catch {
    return null;
  }
}

function entries(proc: string): string[] {
  try {
    return readdirSync(proc).filter((n) => /^\d+$/.test(n));
  } catch {
    return [];
  }
}
