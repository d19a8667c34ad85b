import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentPid,
  agentRunning,
  isAlive,
  isRunning,
  lines,
  makeProject,
  runId,
  until,
  type Background,
  type Project,
} from './harness.js';

/**
 * Regression tests (Engine v2): a run can always be stopped — during a shell step, in a Lua
 * loop that makes no host call — and a driver that lost its lease never writes again.
 */

const spawned: Background[] = [];
const strayPids: number[] = [];
afterEach(() => {
  // A failing test must not leave a driver (perhaps SIGSTOPped) or its processes behind.
  for (const bg of spawned.splice(0)) {
    if (bg.child.exitCode === null && bg.child.signalCode === null) {
      bg.child.kill('SIGCONT');
      bg.child.kill('SIGKILL');
    }
  }
  for (const pid of strayPids.splice(0)) if (isAlive(pid)) process.kill(pid, 'SIGKILL');
});

function background(p: Project, args: string[]): Background {
  const bg = p.spawnShop(args);
  spawned.push(bg);
  return bg;
}

async function startedId(bg: Background): Promise<number> {
  await until('the run id', () => /run \d+ started/.test(bg.output()));
  return runId(bg.output());
}

/** The exit code once the process ends, or 'still running' after `ms`. */
function exitWithin(bg: Background, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((res) => (timer = setTimeout(() => res('still running'), ms)));
  return Promise.race([bg.exited, late]).finally(() => clearTimeout(timer));
}

describe('shop stop during an sh() step', () => {
  it('kills the command, starts no further agent, and leaves no execution running', async () => {
    const p = makeProject();
    // The command writes its pid (exec: the shell becomes the sleep) so the test checks its own process.
    p.write(
      'workflows/shell.lua',
      'function workflow(prompt)\n  sh("echo $$ > sh.pid; exec sleep 10")\n  return run("coder", "after the shell step").status\nend\n',
    );
    const bg = background(p, ['run', 'shell']);
    const id = await startedId(bg);
    const pidFile = join(p.dir, 'sh.pid');
    const pid = await until(
      'the sh command to start',
      () => existsSync(pidFile) && Number(readFileSync(pidFile, 'utf8').trim()),
    );
    strayPids.push(pid);
    await until(
      'the shell to exec the sleep',
      () => readFileSync(`/proc/${pid}/cmdline`, 'utf8') === 'sleep\x0010\x00',
    );

    const r = p.shop(['stop', String(id), '--reason', 'R']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`Run ${id} marked as stuck: R`);

    const code = await exitWithin(bg, 20_000);
    // Nothing ran after the stop: the coder was never invoked (before v2 it ran once sleep ended).
    expect(p.invocations().map((i) => i.agent)).toEqual([]);
    expect(code).toBe(4);
    expect(lines(bg.output()).at(-1)).toBe(`run ${id} is stuck: R`);
    await until('the sleep to be gone', () => !isRunning(pid), 5_000);
    const s = p.status(id);
    expect(s).toMatchObject({ status: 'stuck', reason: 'R', pending: null });
    expect(s.executions.map((e) => [e.key, e.kind, e.status])).toEqual([['1', 'sh', 'failed']]);
  });
});

describe('a Lua loop that makes no host call', () => {
  // now() is a host call: it makes the log line show (before v2 logs were printed at the next
  // host call); from then on the script loops without one.
  const SPIN = 'function workflow(prompt)\n  log("spinning")\n  now()\n  while true do end\nend\n';

  /** Starts `shop run spin` and waits until its Lua is in the loop. */
  async function spinning(p: Project): Promise<{ bg: Background; id: number }> {
    p.write('workflows/spin.lua', SPIN);
    const bg = background(p, ['run', 'spin']);
    const id = await startedId(bg);
    await until('the loop to start', () => bg.output().includes('  log: spinning'));
    return { bg, id };
  }

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`${signal} to the driving shop run ends it with exit 130; the run is interrupted and resumable`, async () => {
      const p = makeProject();
      const { bg, id } = await spinning(p);
      bg.child.kill(signal);
      expect(await exitWithin(bg, 10_000)).toBe(130);
      expect(lines(bg.output()).at(-1)).toBe(
        `shop: run ${id} interrupted; its agents were stopped; pick it up with: shop resume ${id}`,
      );
      expect(p.status(id)).toMatchObject({ status: 'interrupted', reason: null });

      // Not wedged: another process takes it over (here with the loop gone from the script).
      p.write('workflows/spin.lua', SPIN.replace('while true do end', 'return "stopped spinning"'));
      const r = p.shop(['resume', String(id)]);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(p.status(id)).toMatchObject({ status: 'completed', result: 'stopped spinning' });
    });
  }

  it('shop stop ends it: the driver exits 4 and the run is stuck with the reason', async () => {
    const p = makeProject();
    const { bg, id } = await spinning(p);
    const started = Date.now();
    const r = p.shop(['stop', String(id), '--reason', 'R']);
    expect(r.code).toBe(0);
    expect(lines(r.stdout).at(-1)).toBe(`Run ${id} marked as stuck: R`);
    expect(await exitWithin(bg, 10_000)).toBe(4);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(lines(bg.output()).at(-1)).toBe(`run ${id} is stuck: R`);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'R' });
  });

  it('config{ lua_timeout = 1 } fails a loop that pcall cannot catch, naming the looping line', async () => {
    const p = makeProject();
    p.write(
      'workflows/pspin.lua',
      [
        'config{ lua_timeout = 1 }',
        'function workflow(prompt)',
        '  while true do',
        '    pcall(function() while true do end end)',
        '  end',
        'end',
      ].join('\n'),
    );
    const bg = background(p, ['run', 'pspin']);
    const id = await startedId(bg);
    const code = await exitWithin(bg, 10_000);
    const reason = `pspin.lua:4: 1s of Lua without a host call (an endless loop?); raise the limit with config{ lua_timeout = … } if it is meant`;
    expect(lines(bg.output())).toEqual([`run ${id} started (pspin)`, `shop: run ${id} failed: ${reason}`]);
    expect(code).toBe(1);
    expect(p.status(id)).toMatchObject({ status: 'failed', reason });
  });
});

describe('a driver stopped past its lease (SIGSTOP)', () => {
  it('is fenced: resume takes the run over, and the woken driver exits 6 without writing', async () => {
    const p = makeProject();
    p.env.SHOP_LEASE_SECONDS = '2';
    // The first coder works long (it is killed on takeover); the resumed one asks a question.
    p.scenario({
      agents: {
        coder: [
          { status: 'DONE', summary: 'slow', sleep_ms: 60_000 },
          { status: 'NEEDS_HUMAN', reason: 'Which database?' },
        ],
      },
    });
    const bg = background(p, ['run', 'bugfix', 'x']);
    const id = await startedId(bg);
    const first = await until('the coder to start', () => p.invocations().find((i) => i.agent === 'coder'));
    strayPids.push(agentPid(first)!);

    // While the driver is alive and renewing, nobody else may drive the run.
    const busy = p.shop(['resume', String(id)]);
    expect(busy.code).toBe(6);
    expect(lines(busy.stderr)).toEqual([
      expect.stringMatching(new RegExp(`^shop: run ${id} is being driven by process ${bg.child.pid}; wait for it`)),
    ]);

    bg.child.kill('SIGSTOP');
    // Polling, not a fixed sleep: 2 s here; before v2 (a fixed 30 s lease) about half a minute.
    await until('the lease to run out', () => p.status(id).status === 'interrupted', 45_000);

    const r = p.shop(['resume', String(id)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(3);
    expect(r.stdout).toContain(`  [1] coder resumed (session ${first.session_id})`);
    expect(r.stdout).toContain(`run ${id} is waiting for a person (input): coder asks: Which database?`);
    expect(agentRunning(first)).toBe(false);
    const before = p.status(id);
    expect(before).toMatchObject({ status: 'waiting_human', pending: { key: '1', agent: 'coder' } });

    bg.child.kill('SIGCONT');
    const code = await exitWithin(bg, 10_000);
    expect(bg.output()).not.toMatch(/UNIQUE constraint|internal error/);
    // It wrote nothing: the run, its executions and its pending ask are as the new driver left them.
    expect(p.status(id)).toEqual(before);
    expect(code).toBe(6);
    expect(lines(bg.output()).at(-1)).toContain(`shop: run ${id} was taken over by another driver`);
    expect(p.invocations().map((i) => [i.call, i.resumed])).toEqual([
      ['1', false],
      ['1', true],
    ]);
  }, 90_000);
});
