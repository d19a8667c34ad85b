// The whole machine's CPU time, from /proc/stat: every process's (Shop's or DBOS's workers,
// PostgreSQL's backends, the stub steps, this bench), so a side that moves work into another
// process is not flattered. Linux only; elsewhere the figure is left out (null).
import { readdirSync, readFileSync } from 'node:fs';

/** Jiffies per second: Linux's USER_HZ, 100 on every mainstream kernel (getconf CLK_TCK). */
const USER_HZ = 100;

/** Busy CPU milliseconds since boot (user, nice, system, irq, softirq, steal), or null off Linux. */
export function busyMs() {
  let line;
  try {
    line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
  } catch {
    return null;
  }
  const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
  return ((user + nice + system + irq + softirq + (steal || 0)) * 1000) / USER_HZ;
}

/** Every live process's CPU milliseconds so far (user + system), with its name and command line. */
function processCpu() {
  const out = new Map();
  let names;
  try {
    names = readdirSync('/proc').filter((n) => /^\d+$/.test(n));
  } catch {
    return out;
  }
  for (const pid of names) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      out.set(pid, { pid: Number(pid), comm, cmd, ms: ((Number(f[11]) + Number(f[12])) * 1000) / USER_HZ });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/**
 * Measures the machine's CPU from now until `end()`, which resolves to { totalMs, byKind }:
 * `kindOf(process)` names what each live process is (or null), and `byKind.rest` is what no
 * named process spent — short-lived ones (the steps' processes), processes that ended within
 * the window, and anything else on the machine. Null off Linux.
 */
export function cpuWindow(kindOf) {
  const busy = busyMs();
  if (busy === null) return { end: () => null };
  const before = processCpu();
  return {
    end() {
      const totalMs = busyMs() - busy;
      const byKind = {};
      let named = 0;
      for (const [pid, p] of processCpu()) {
        const kind = kindOf(p);
        if (!kind) continue;
        const ms = p.ms - (before.get(pid)?.ms ?? 0);
        byKind[kind] = (byKind[kind] ?? 0) + ms;
        named += ms;
      }
      byKind.rest = totalMs - named;
      return { totalMs, byKind };
    },
  };
}
