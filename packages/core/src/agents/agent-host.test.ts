import { spawn, spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startAgent } from './agent-host.js';
import type { AgentStart } from './agent-start.js';
import { groupAlive, isAlive, killGroupAndWait, pidsWithEnv } from './process-group.js';
import { hostOf } from '../testing/agent-host-of.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

const dir = tempDir('shop-agent-host-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function req(name: string, script: string, env: Record<string, string> = {}): AgentStart {
  return {
    file: 'sh',
    args: ['-c', script],
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', ...env },
    stdoutFile: join(dir, `${name}.out`),
    stderrFile: join(dir, `${name}.err`),
  };
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
    await expect(
      startAgent({ ...req('nolog', 'true'), stdoutFile: join(dir, 'no', 'such', 'dir.out') }),
    ).rejects.toThrow(/ENOENT/);
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
    const driver = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
      const { startAgent } = await import(${JSON.stringify(new URL('../../dist/agents/agent-host.js', import.meta.url).href)});
      const a = await startAgent(${JSON.stringify(req('orphan', 'sleep 60'))});
      console.log(a.pid);
      await a.done;`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    driver.stdout.on('data', (d) => (out += d));
    await until('the driver to start its agent', () => /^\d+\n/.test(out));
    const agent = Number(out.trim());
    expect(isAlive(agent)).toBe(true);
    driver.kill('SIGKILL');
    await until('the orphaned agent to end with its driver', () => !groupAlive(agent));
  });
});

/** What the machine gives agents unless told otherwise (containment.ts probes the same way). */
const namespaces =
  spawnSync('unshare', [
    ...(process.getuid?.() === 0 ? [] : ['--map-current-user']),
    '--pid',
    '--fork',
    '--kill-child',
    'true',
  ]).status === 0;
const MODES = [
  ...(namespaces ? [{ mode: 'pid-namespace', force: undefined }] : []),
  { mode: 'process-group', force: 'process-group' },
] as const;

describe.each(MODES)('every process an agent started ends with it ($mode)', ({ mode, force }) => {
  beforeEach(() => {
    if (force) process.env.SHOP_AGENT_CONTAINMENT = force;
  });
  afterEach(() => {
    delete process.env.SHOP_AGENT_CONTAINMENT;
  });

  it('a leftover that left its process group (setsid) is gone once the agent has ended; the exit code comes back', async () => {
    const mark = randomUUID();
    const started = await startAgent(
      req(`left-${mode}`, 'setsid sh -c "sleep 300" & sleep 0.2; exit 3', { TEST_MARK: mark }),
    );
    expect(started.containment).toBe(mode);
    expect(await started.done).toEqual({ code: 3 });
    expect(pidsWithEnv('TEST_MARK', mark)).toEqual([]);
  });

  it("a stop (TERM to the agent's group) keeps its grace: the agent's own clean-up runs and its status comes back", async () => {
    const started = await startAgent(
      req(`grace-${mode}`, 'trap "sleep 0.3; echo cleaned; exit 5" TERM; echo ready; sleep 30 & wait', {}),
    );
    await until('the agent to be ready', () => readFileSync(join(dir, `grace-${mode}.out`), 'utf8').includes('ready'));
    await killGroupAndWait(started.pid!);
    expect(await started.done).toEqual({ code: 5 });
    expect(readFileSync(join(dir, `grace-${mode}.out`), 'utf8')).toBe('ready\ncleaned\n');
  });
});

/** The namespace's init: the one child of `unshare` (the agent's recorded pid). */
function initOf(unshare: number): number {
  const init = Number(readFileSync(`/proc/${unshare}/task/${unshare}/children`, 'utf8').trim());
  if (!(init > 1)) throw new Error(`no init under unshare ${unshare}`);
  return init;
}

describe.runIf(namespaces)('in a PID namespace', () => {
  it("a leftover that double-forked and cleared its environment is gone with the agent; TERM to the namespace's init alone reaches the agent", async () => {
    const mark = randomUUID();
    const script = `( setsid env -i TEST_MARK=${mark} sh -c "sleep 300" & ); trap "exit 6" TERM; echo ready; sleep 30 & wait`;
    const started = await startAgent(req('init', script, {}));
    expect(started.containment).toBe('pid-namespace');
    await until('the agent to be ready', () => readFileSync(join(dir, 'init.out'), 'utf8').includes('ready'));
    await until('the leftover to run', () => pidsWithEnv('TEST_MARK', mark).length > 0);
    // The init is pid 1 of the namespace: it ignores signals it has no handler for, so it hands TERM on.
    process.kill(initOf(started.pid!), 'SIGTERM');
    expect(await started.done).toEqual({ code: 6 });
    expect(pidsWithEnv('TEST_MARK', mark)).toEqual([]);
  });

  it('the agent starts with the signals a shell would have ignored in a background command (INT, QUIT): a script agent traps INT', async () => {
    const started = await startAgent(req('int', 'trap "exit 7" INT; echo ready; sleep 30 & wait', {}));
    await until('the agent to be ready', () => readFileSync(join(dir, 'int.out'), 'utf8').includes('ready'));
    process.kill(initOf(started.pid!), 'SIGINT');
    expect(await started.done).toEqual({ code: 7 });
  });

  it('a command that cannot run is told as spawn tells it (ENOENT, EACCES), before any namespace is made', async () => {
    const missing = await startAgent({ ...req('missing-ns', ''), file: 'no-such-agent-anywhere', args: [] });
    expect((await missing.done).error?.code).toBe('ENOENT');
    const plain = join(dir, 'not-executable');
    writeFileSync(plain, '#!/bin/sh\n', { mode: 0o644 });
    const denied = await startAgent({ ...req('denied-ns', ''), file: plain, args: [] });
    expect((await denied.done).error?.code).toBe('EACCES');
  });
});
