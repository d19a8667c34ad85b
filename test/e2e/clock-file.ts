import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runId, type Project } from './harness.js';

/**
 * Every shop process of the project reads its clock offset (seconds) from this file
 * (SHOP_CLOCK_FILE): a test moves timers and leases on instead of sleeping through them.
 */
export function withClock(p: Project): (seconds: number) => void {
  const file = join(p.dir, 'clock');
  writeFileSync(file, '0');
  p.env.SHOP_CLOCK_FILE = file;
  return (seconds) => writeFileSync(file, String(seconds));
}

/**
 * A run asleep for `seconds` (workflows/tick.lua), started before the clock moves past its time.
 * Once a worker has woken it, that worker has looked at every timer due by then: the sign a test
 * waits for before saying a run not yet due was left asleep (rather than sleeping a while).
 */
export function tickRun(p: Project, seconds: number): number {
  p.write('workflows/tick.lua', `function workflow(prompt)\n  sleep(${seconds})\n  return "ticked"\nend\n`);
  const r = p.shop(['run', 'tick']);
  if (r.code !== 7) throw new Error(`shop run tick exited ${r.code}:\n${r.stdout}${r.stderr}`);
  return runId(r);
}
