import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentStart } from './agent-start.js';
import { isAlive, pidsWithEnv } from './process-group.js';
import { hostOf } from '../testing/agent-host-of.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

const dir = tempDir('shop-agent-host-gone-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const agentHost = new URL('../../dist/agents/agent-host.js', import.meta.url).href;

function req(name: string, script: string, mark: string): AgentStart {
  return {
    file: 'sh',
    args: ['-c', script],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', TEST_MARK: mark },
    stdoutFile: join(dir, `${name}.out`),
    stderrFile: join(dir, `${name}.err`),
  };
}

/**
 * A driver killed -9 while its agent host is behind (a loaded machine had not run it): the host
 * reads the driver's last messages only after the driver is gone, and another driver may have
 * taken the run over by then — its check for leftovers on the session already done.
 */
describe('an agent host whose driver died before it read the driver’s last request', () => {
  it('starts nothing for it, and still ends the agents it runs', async () => {
    const mark = randomUUID();
    const lateStarted = join(dir, 'late.started');
    const driver = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { startAgent } = await import(${JSON.stringify(agentHost)});
      const first = await startAgent(${JSON.stringify(req('first', 'sleep 60', mark))});
      console.log(first.pid);
      process.stdin.once('data', () => {
        void startAgent(${JSON.stringify(req('late', `touch ${lateStarted}; sleep 60`, mark))});
        console.log('sent');
      });
      await first.done;`,
      ],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let out = '';
    driver.stdout.on('data', (d) => (out += d));
    await until('the driver to start its first agent', () => /^\d+\n/.test(out));
    const host = hostOf(driver.pid!)!;
    // The host falls behind: the request to start another agent waits in its channel, unread.
    process.kill(host, 'SIGSTOP');
    driver.stdin.write('go\n');
    await until('the driver to send the request', () => out.includes('sent'));
    const exited = new Promise((r) => driver.on('exit', r));
    driver.kill('SIGKILL');
    await exited;
    process.kill(host, 'SIGCONT');
    await until('the host to end', () => !isAlive(host));
    expect(existsSync(lateStarted)).toBe(false);
    expect(pidsWithEnv('TEST_MARK', mark)).toEqual([]);
  });
});
