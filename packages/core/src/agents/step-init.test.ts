import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STEP_INIT } from './containment.js';
import { STEP_INIT_NAME } from './step-init-name.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

const dir = tempDir('shop-step-init-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs an agent under the step's init (as in its namespace, without one), INT to the init until it ends: its exit code. */
async function interrupted(i: number): Promise<number | null> {
  const ready = join(dir, `ready-${i}`);
  const agent = `trap "exit 7" INT; touch ${ready}; sleep 30 & wait`;
  const init = spawn('sh', ['-c', STEP_INIT, STEP_INIT_NAME, 'sh', '-c', agent], { stdio: 'ignore' });
  const ended = new Promise<number | null>((resolve) => init.on('exit', (code) => resolve(code)));
  await until('the agent to be ready', () => existsSync(ready));
  // Again every 50 ms: a signal that lands before a shell is waiting can be missed (dash), which is not what this is about.
  const again = setInterval(() => init.kill('SIGINT'), 50);
  init.kill('SIGINT');
  const code = await ended;
  clearInterval(again);
  return code;
}

describe("the step's init", () => {
  it("ends with the agent's own status when a signal it forwarded ended the agent — never the interrupted wait's 130", async () => {
    const codes: (number | null)[] = [];
    for (let i = 0; i < 40; i++) codes.push(await interrupted(i));
    expect(codes.filter((c) => c !== 7)).toEqual([]);
  });
});
