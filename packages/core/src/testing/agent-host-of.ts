import { execFileSync } from 'node:child_process';
import { AGENT_HOST_NAME } from '../agents/agent-host-source.js';

/** The pid of the process whose argv is `shop-agent-host <driver>` (the agent host that driver started), or null. */
export function hostOf(driver: number): number | null {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (m && m[2]!.includes(`${AGENT_HOST_NAME} ${driver}`)) return Number(m[1]);
  }
  return null;
}
