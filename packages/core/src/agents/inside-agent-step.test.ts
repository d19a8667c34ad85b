import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { insideAgentStep } from './inside-agent-step.js';

const root = mkdtempSync(join(tmpdir(), 'shop-fake-proc-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface FakeProcess {
  pid: number;
  ppid: number;
  comm: string;
  argv: string[];
  env?: Record<string, string>;
  /** NSpid: from the machine's namespace down (default: the pid alone). */
  nspid?: number[];
  ns?: string;
}

let made = 0;
/** A /proc of these processes; `self` is the first. */
function fakeProc(processes: FakeProcess[]): string {
  const proc = join(root, String(made++));
  const write = (dir: string, p: FakeProcess) => {
    mkdirSync(join(dir, 'ns'), { recursive: true });
    writeFileSync(join(dir, 'stat'), `${p.pid} (${p.comm}) S ${p.ppid} ${p.pid} ${p.pid} 0 -1`);
    writeFileSync(join(dir, 'cmdline'), `${p.argv.join('\0')}\0`);
    writeFileSync(
      join(dir, 'environ'),
      Object.entries(p.env ?? {})
        .map(([k, v]) => `${k}=${v}\0`)
        .join(''),
    );
    writeFileSync(join(dir, 'status'), `Name:\t${p.comm}\nNSpid:\t${(p.nspid ?? [p.pid]).join('\t')}\n`);
    symlinkSync(p.ns ?? 'pid:[1]', join(dir, 'ns', 'pid'));
  };
  write(join(proc, 'self'), processes[0]!);
  for (const p of processes) write(join(proc, String(p.pid)), p);
  return proc;
}

const init: FakeProcess = { pid: 1, ppid: 0, comm: 'systemd', argv: ['/sbin/init'] };
const login: FakeProcess = {
  pid: 90,
  ppid: 1,
  comm: 'bash',
  argv: ['-bash'],
  env: { HOME: '/home/ann', SHOP_HOME: '/p/.shop' },
};
const driver: FakeProcess = {
  pid: 100,
  ppid: 90,
  comm: 'node',
  argv: ['node', 'shop', 'run', 'ship'],
  env: { HOME: '/home/ann' },
};
const host: FakeProcess = {
  pid: 101,
  ppid: 100,
  comm: 'node',
  argv: ['node', '-e', "'use strict';…", 'shop-agent-host', '100'],
  env: { HOME: '/home/ann' },
};
const stepEnv = { SHOP_RUN_ID: '4', SHOP_CALL: '1', SHOP_AGENT: 'coder', SHOP_STEP: 'ab12' };
const unshare: FakeProcess = {
  pid: 102,
  ppid: 101,
  comm: 'unshare',
  argv: ['unshare', '--pid', '--fork', '--kill-child', '--', '/bin/sh', '-c', 'trap …', 'shop-step-init', 'claude'],
  env: stepEnv,
};
const stepInit: FakeProcess = {
  pid: 103,
  ppid: 102,
  comm: 'sh',
  argv: ['/bin/sh', '-c', 'trap …', 'shop-step-init', 'claude', '-p'],
  env: stepEnv,
  nspid: [103, 1],
  ns: 'pid:[9]',
};
const agent: FakeProcess = {
  pid: 104,
  ppid: 103,
  comm: 'claude',
  argv: ['claude', '-p', 'work'],
  env: stepEnv,
  nspid: [104, 2],
  ns: 'pid:[9]',
};
const bash: FakeProcess = {
  pid: 105,
  ppid: 104,
  comm: 'bash',
  argv: ['bash', '-c', 'env -i shop approve 4.2'],
  env: stepEnv,
  nspid: [105, 3],
  ns: 'pid:[9]',
};

describe('insideAgentStep', () => {
  it("a person's terminal: nothing gives a step away (SHOP_HOME is a person's setting too)", () => {
    const me: FakeProcess = {
      pid: 200,
      ppid: 90,
      comm: 'node',
      argv: ['node', 'shop', 'approve', '4.2'],
      env: { SHOP_HOME: '/p/.shop' },
    };
    expect(insideAgentStep({ SHOP_HOME: '/p/.shop', SHOP_USER: 'ann' }, fakeProc([me, login, init]))).toBeNull();
  });

  it('a step variable in its own environment, named with its value (long values cut)', () => {
    const proc = fakeProc([{ ...driver, pid: 300 }, init]);
    expect(insideAgentStep({ SHOP_AGENT: 'coder', SHOP_RUN_ID: '4' }, proc)).toBe('SHOP_AGENT=coder');
    expect(insideAgentStep({ SHOP_RUN_ID: '4' }, proc)).toBe('SHOP_RUN_ID=4');
    expect(insideAgentStep({ SHOP_SIGNAL_FILE: `/p/.shop/signals/${'x'.repeat(80)}.json` }, proc)).toBe(
      `SHOP_SIGNAL_FILE=/p/.shop/signals/${'x'.repeat(20)}…`,
    );
    expect(insideAgentStep({ SHOP_STEP: 'ab12' }, proc)).toBe('SHOP_STEP=ab12');
    expect(insideAgentStep({ SHOP_AGENT: '' }, proc)).toBeNull();
  });

  it('env -i does not hide it: an ancestor whose environment holds a step variable', () => {
    const approve: FakeProcess = {
      pid: 106,
      ppid: 105,
      comm: 'node',
      argv: ['node', 'shop', 'approve', '4.2'],
      nspid: [106, 4],
      ns: 'pid:[9]',
    };
    const proc = fakeProc([approve, bash, agent, stepInit, unshare, host, driver, login, init]);
    expect(insideAgentStep({ PATH: '/usr/bin' }, proc)).toBe('its ancestor process 105 (bash) has SHOP_AGENT=coder');
  });

  it("a leftover that cleared its environment and was reparented: the step's init, or the agent host, above it", () => {
    const orphan: FakeProcess = {
      pid: 107,
      ppid: 103,
      comm: 'node',
      argv: ['node', 'shop', 'approve', '4.2'],
      nspid: [107, 5],
      ns: 'pid:[9]',
    };
    const initNoEnv = { ...stepInit, env: {} };
    expect(insideAgentStep({}, fakeProc([orphan, initNoEnv, { ...unshare, env: {} }, host, driver, login, init]))).toBe(
      "its ancestor process 103 is an agent step's init (shop-step-init)",
    );
    const underHost: FakeProcess = { pid: 108, ppid: 101, comm: 'node', argv: ['node', 'shop', 'approve'] };
    expect(insideAgentStep({}, fakeProc([underHost, host, driver, login, init]))).toBe(
      "its ancestor process 101 is Shop's agent host (shop-agent-host)",
    );
  });

  it("in the step's own /proc (its PID namespace's) the init is pid 1, and is looked at too", () => {
    const nsInit: FakeProcess = {
      pid: 1,
      ppid: 0,
      comm: 'sh',
      argv: ['/bin/sh', '-c', 'trap …', 'shop-step-init', 'claude'],
    };
    const orphan: FakeProcess = { pid: 7, ppid: 1, comm: 'node', argv: ['node', 'shop', 'approve', '4.2'] };
    expect(insideAgentStep({}, fakeProc([orphan, nsInit]))).toBe(
      "its ancestor process 1 is an agent step's init (shop-step-init)",
    );
  });

  it("inside a step's PID namespace though not below its init (put there from outside): the namespace's init says so", () => {
    const entered: FakeProcess = {
      pid: 109,
      ppid: 90,
      comm: 'node',
      argv: ['node', 'shop', 'approve'],
      nspid: [109, 6],
      ns: 'pid:[9]',
    };
    const elsewhere: FakeProcess = { pid: 110, ppid: 1, comm: 'sh', argv: ['sh'], nspid: [110, 1], ns: 'pid:[7]' };
    expect(insideAgentStep({}, fakeProc([entered, login, init, elsewhere, { ...stepInit, env: {} }]))).toBe(
      "it runs in the PID namespace of an agent step, whose init process 103 is an agent step's init (shop-step-init)",
    );
    // Someone else's namespace (a container's) is not a step.
    const inOther: FakeProcess = { ...entered, ns: 'pid:[7]', nspid: [111, 2], pid: 111 };
    expect(insideAgentStep({}, fakeProc([inOther, login, init, elsewhere]))).toBeNull();
  });

  it('without /proc (macOS) only the environment is seen', () => {
    expect(insideAgentStep({}, join(root, 'no-such-proc'))).toBeNull();
    expect(insideAgentStep({ SHOP_CALL: '2' }, join(root, 'no-such-proc'))).toBe('SHOP_CALL=2');
  });
});
