/** Kills a detached child's whole process group: TERM, then KILL after a grace period. */
export function killGroup(pid: number, graceMs = 2000): void {
  const send = (sig: NodeJS.Signals) => {
    try {
      process.kill(-pid, sig);
    } catch {
      /* already gone */
    }
  };
  send('SIGTERM');
  const t = setTimeout(() => isAlive(-pid) && send('SIGKILL'), graceMs);
  t.unref();
}

/** True when the process (or, for a negative pid, any of the group) still exists. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Kills a group and waits until it is gone (for taking over an orphan after a crash). */
export async function killGroupAndWait(pid: number, timeoutMs = 5000): Promise<void> {
  if (!isAlive(-pid)) return;
  killGroup(pid, Math.min(2000, timeoutMs / 2));
  const end = Date.now() + timeoutMs;
  while (isAlive(-pid) && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
}
