import { execFileSync, spawn } from 'node:child_process';
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startAgent, type AgentStart } from './agent-host.js';
import { AGENT_HOST_NAME } from './agent-host-source.js';
import { groupAlive, isAlive } from './process-group.js';
import { tempDir } from '../testing/temp-dir.js';

const dir = tempDir('shop-agent-host-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function req(name: string, script: string, env: Record<string, string> = {}): AgentStart {
  return { file: 'sh', args: ['-c', script], cwd: dir, env: { PATH: process.env.PATH ?? '', ...env }, stdoutFile: join(dir, `${name}.out`), stderrFile: join(dir, `${name}.err`) };
}

const until = async (what: string, ok: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

/** The pid of the process whose argv is `shop-agent-host <driver>` (this test process's host). */
function hostOf(driver: number): number | null {
  const out = execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const m = /^\s*(\d+)\s+(.*)$/.exec(line);
    if (m && m[2]!.includes(`${AGENT_HOST_NAME} ${driver}`)) return Number(m[1]);
  }
  return null;
}

describe('agents started by the agent host', () => {
  it('run in their own process group with their environment, output in private files, and their exit code comes back', async () => {
    const started = await startAgent(req('ok', 'echo "out $FOO"; echo err >&2; exit 7', { FOO: 'bar' }));
    expect(started.pid).toBeGreaterThan(0);
    expect(await started.done).toEqual({ code: 7 });
    expect(readFileSync(join(dir, 'ok.out'), 'utf8')).toBe('out bar\n');
    expect(readFileSync(join(dir, 'ok.err'), 'utf8')).toBe('err\n');
    expect(statSync(join(dir, 'ok.out')).mode & 0o777).toBe(0o600);
    // The host, not this process, is the agent's parent.
    expect(hostOf(process.pid)).not.toBeNull();
  });

  it('a command that does not exist fails to start with its error code; a log that cannot be made throws', async () => {
    const missing = await startAgent({ ...req('missing', ''), file: join(dir, 'no-such-agent'), args: [] });
    expect(missing.pid).toBeUndefined();
    expect((await missing.done).error?.code).toBe('ENOENT');
    await expect(startAgent({ ...req('nolog', 'true'), stdoutFile: join(dir, 'no', 'such', 'dir.out') })).rejects.toThrow(/ENOENT/);
  });

  it('when the host is killed, its running agents are stopped and reported lost; the next agent gets a new host', async () => {
    const started = await startAgent(req('long', 'sleep 30'));
    const host = hostOf(process.pid)!;
    process.kill(host, 'SIGKILL');
    const exit = await started.done;
    expect(exit.code).toBeNull();
    expect(exit.lost).toMatch(/ended unexpectedly; the agent \(pid \d+\) was stopped/);
    expect(groupAlive(started.pid!)).toBe(false);
    const next = await startAgent(req('after', 'exit 0'));
    expect(await next.done).toEqual({ code: 0 });
    expect(hostOf(process.pid)).not.toBe(host);
  });

  it('when the driver dies (kill -9), the host ends its agents', async () => {
    // A driver of its own: this file's module, in a node process started for the test.
    const driver = spawn(process.execPath, ['--input-type=module', '-e', `
      const { startAgent } = await import(${JSON.stringify(new URL('../../dist/agents/agent-host.js', import.meta.url).href)});
      const a = await startAgent(${JSON.stringify(req('orphan', 'sleep 60'))});
      console.log(a.pid);
      await a.done;`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    driver.stdout.on('data', (d) => (out += d));
    await until('the driver to start its agent', () => /^\d+\n/.test(out));
    const agent = Number(out.trim());
    expect(isAlive(agent)).toBe(true);
    driver.kill('SIGKILL');
    await until('the orphaned agent to end with its driver', () => !groupAlive(agent));
  });
});
