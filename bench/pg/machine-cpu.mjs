// The whole machine's CPU time, from /proc/stat: every process's (Shop's or DBOS's workers,
// PostgreSQL's backends, the stub steps, this bench), so a side that moves work into another
// process is not flattered. Linux only; elsewhere the figure is left out (null).
import { readFileSync } from 'node:fs';

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
