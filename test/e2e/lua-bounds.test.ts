import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  killLeftovers,
  lines,
  makeProject,
  runId,
  startWorker,
  stopWorker,
  until,
  type Background,
  type Project,
} from './harness.js';

/**
 * Regression tests (issue 14, Why 4, 6, 9): nothing a workflow does stalls the process —
 * a loop in a sort comparator behind pcall, a backtracking pattern, a huge string, a loop
 * while the file loads, an agent name that leaves agents/. Before the fix each of the loops
 * spun for ever (SIGTERM ignored, shop stop "marked as stuck" while the driver spun), the
 * string aborted Node (exit 134), and "a/b" left the run interrupted for good.
 */

const spawned: Background[] = [];
afterEach(() => {
  for (const bg of spawned.splice(0))
    if (bg.child.exitCode === null && bg.child.signalCode === null) bg.child.kill('SIGKILL');
});
afterAll(killLeftovers);

/** Far past "ended within a second or two", far short of "spins for ever". */
const BOUND_MS = 15_000;

function exitWithin(bg: Background, ms: number): Promise<number | null | 'still running'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'still running'>((res) => (timer = setTimeout(() => res('still running'), ms)));
  return Promise.race([bg.exited, late]).finally(() => clearTimeout(timer));
}

/** CPU time a process has used (utime + stime, in clock ticks of 1/100 s). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

const SORT_SPIN = 'table.sort({3, 2, 1}, function() while true do pcall(function() while true do end end) end end)';
const timeoutReason = (file: string, line: number, s: number) =>
  `${file}:${line}: ${s}s of Lua without a host call (an endless loop?); raise the limit with config{ lua_timeout = … } if it is meant`;

describe('lua_timeout reaches every loop', () => {
  it('a loop in a sort comparator, behind pcall, fails the run at the looping line', () => {
    const p = makeProject();
    p.write('workflows/sortspin.lua', `config{ lua_timeout = 2 }\nfunction workflow(prompt)\n  ${SORT_SPIN}\nend\n`);
    const r = p.shop(['run', 'sortspin']);
    const id = runId(r);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([`shop: run ${id} failed: ${timeoutReason('sortspin.lua', 3, 2)}`]);
    expect(p.status(id)).toMatchObject({ status: 'failed', reason: timeoutReason('sortspin.lua', 3, 2) });
  });

  it('a pattern that backtracks for ever fails at its line with "pattern too complex", past pcall', () => {
    const p = makeProject();
    p.write(
      'workflows/pat.lua',
      'function workflow(prompt)\n  local ok, e = pcall(string.find, ("a"):rep(3000), ".-.-.-b")\n  error(e)\nend\n',
    );
    const r = p.shop(['run', 'pat']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)[0]).toMatch(
      /^shop: run \d+ failed: pat\.lua:3: pattern too complex: over \d+ matching steps on a 3000-byte string/,
    );
  });

  it("a loop in xpcall's message handler fails the run at its lua_timeout (it ran with no hook, for ever)", async () => {
    const p = makeProject();
    p.write(
      'workflows/handler.lua',
      'config{ lua_timeout = 2 }\nfunction workflow(prompt)\n  xpcall(function() error("x") end, function(e) while true do end end)\nend\n',
    );
    const bg = p.spawnShop(['run', 'handler']);
    spawned.push(bg);
    expect(await exitWithin(bg, BOUND_MS)).toBe(1);
    const id = runId(bg.output());
    expect(p.status(id)).toMatchObject({ status: 'failed', reason: timeoutReason('handler.lua', 3, 2) });
  });

  it('applies while the file loads: a top-level loop after config{ lua_timeout = 1 } is refused, naming the line', () => {
    const p = makeProject();
    p.write('workflows/loadspin.lua', 'config{ lua_timeout = 1 }\nwhile true do end\nfunction workflow(prompt) end\n');
    const r = p.shop(['run', 'loadspin']);
    expect(r.code).toBe(2);
    expect(lines(r.stderr)).toEqual([`shop: ${timeoutReason('loadspin.lua', 2, 1)} (while loading loadspin.lua)`]);
  });
});

describe('a loop in a sort comparator can be stopped', () => {
  async function spinning(p: Project): Promise<{ bg: Background; id: number }> {
    p.write('workflows/spin.lua', `function workflow(prompt)\n  log("sorting")\n  now()\n  ${SORT_SPIN}\nend\n`);
    const bg = p.spawnShop(['run', 'spin']);
    spawned.push(bg);
    await until('the run id', () => /run \d+ started/.test(bg.output()));
    await until('the sort to start', () => bg.output().includes('  log: sorting'));
    return { bg, id: runId(bg.output()) };
  }

  it('by shop stop: the driver exits 4 and the run is stuck with the reason', async () => {
    const p = makeProject();
    const { bg, id } = await spinning(p);
    expect(p.shop(['stop', String(id), '--reason', 'R']).code).toBe(0);
    expect(await exitWithin(bg, BOUND_MS)).toBe(4);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'R' });
  });

  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`by ${signal}: exit 130, the run interrupted and resumable`, async () => {
      const p = makeProject();
      const { bg, id } = await spinning(p);
      bg.child.kill(signal);
      expect(await exitWithin(bg, BOUND_MS)).toBe(130);
      expect(p.status(id)).toMatchObject({ status: 'interrupted' });
    });
  }
});

describe('a loop in the top-level code of a workflow changed under a suspended run', () => {
  /** A run waiting on a pause, then its file made to loop while it loads; shop resume drives it. */
  async function loadingForEver(p: Project): Promise<{ bg: Background; id: number }> {
    p.write('workflows/lp.lua', 'function workflow(prompt)\n  pause("go?")\nend\n');
    const id = runId(p.shop(['run', 'lp']));
    p.write(
      'workflows/lp.lua',
      'config{ lua_timeout = 120 }\nwhile true do end\nfunction workflow(prompt)\n  pause("go?")\nend\n',
    );
    const bg = p.spawnShop(['resume', String(id)]);
    spawned.push(bg);
    // Nothing is recorded while the file loads: a driver that has burnt 1.5 s of CPU is in the loop.
    await until('the driver to spin in the loop', () => cpuSeconds(bg.child.pid!) > 1.5, 30_000);
    return { bg, id };
  }

  it('SIGTERM ends it: exit 130, the run left as it was (waiting on its ask)', async () => {
    const p = makeProject();
    const { bg, id } = await loadingForEver(p);
    bg.child.kill('SIGTERM');
    expect(await exitWithin(bg, BOUND_MS)).toBe(130);
    expect(p.status(id)).toMatchObject({ status: 'waiting_human' });
  });

  it('shop stop ends it: exit 4, the run stuck with the reason', async () => {
    const p = makeProject();
    const { bg, id } = await loadingForEver(p);
    expect(p.shop(['stop', String(id), '--reason', 'R']).code).toBe(0);
    expect(await exitWithin(bg, BOUND_MS)).toBe(4);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'R' });
  });
});

describe('lua_memory_mb', () => {
  it('a string past the cap fails the run at its line with "not enough memory"; Node never aborts', () => {
    const p = makeProject();
    p.write(
      'workflows/mem.lua',
      'config{ lua_memory_mb = 64 }\nfunction workflow(prompt)\n  return string.rep("y", 200 * 1024 * 1024)\nend\n',
    );
    const r = p.shop(['run', 'mem']);
    expect(r.code).toBe(1);
    const reason =
      "mem.lua:3: not enough memory: string.rep would make a string of 200 MB, over the run's Lua memory cap of 64 MB (config{ lua_memory_mb = … })";
    expect(lines(r.stderr)).toEqual([`shop: run ${runId(r)} failed: ${reason}`]);
  });

  it('under the default cap, a 200 MB result is refused by name instead of aborting Node', () => {
    const p = makeProject();
    p.write('workflows/big.lua', 'function workflow(prompt)\n  return string.rep("y", 200 * 1024 * 1024)\nend\n');
    const r = p.shop(['run', 'big']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `shop: run ${runId(r)} failed: big.lua: the workflow's result holds more than 16 MiB of strings (a value handed from Lua to Shop may not; pass a file path instead)`,
    ]);
  });

  it('a Lua table that fills the heap fails the run at its line; Node never aborts', () => {
    const p = makeProject();
    p.write(
      'workflows/tbl.lua',
      'config{ lua_timeout = 120 }\nfunction workflow(prompt)\n  local t = {}\n  while true do t[#t + 1] = { i = #t } end\nend\n',
    );
    // A small heap, so the test is quick; the guard is a share of whatever the limit is.
    const r = p.shop(['run', 'tbl'], { env: { NODE_OPTIONS: '--max-old-space-size=200' } });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^shop: run \d+ failed: tbl\.lua:4: not enough memory: the process's heap holds \d+ MB of its \d+ MB limit/,
      ),
    ]);
  });

  it('a bad value is refused by name', () => {
    const p = makeProject();
    p.write('workflows/badmem.lua', 'config{ lua_memory_mb = 0 }\nfunction workflow(prompt) end\n');
    const r = p.shop(['run', 'badmem']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/lua_memory_mb/);
  });
});

describe('agent names', () => {
  for (const name of ['../../x/y', 'a/b', 'a b', 'x\u001b[2J']) {
    it(`run(${JSON.stringify(name)}) fails the run at the call's line with exit 2, past pcall`, () => {
      const p = makeProject();
      p.write(
        'workflows/names.lua',
        `function workflow(prompt)\n  local ok = pcall(run, ${JSON.stringify(name).replace('\\u001b', '\\27')})\n  return "went on"\nend\n`,
      );
      const r = p.shop(['run', 'names']);
      const id = runId(r);
      expect(r.code).toBe(2);
      const reason = `names.lua:2: run(): agent name ${JSON.stringify(name)} is not allowed: use 1 to 64 letters, digits, _ or - (the file is agents/<name>.md)`;
      expect(lines(r.stderr)).toEqual([`shop: run ${id} failed: ${reason}`]);
      expect(p.status(id)).toMatchObject({ status: 'failed', reason });
      expect(p.invocations()).toEqual([]);
    });
  }

  it('a well-formed name with no file is a clear failure, never an internal error', () => {
    const p = makeProject();
    p.write('workflows/nosuch.lua', 'function workflow(prompt)\n  return run("nosuch").status\nend\n');
    const r = p.shop(['run', 'nosuch']);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(lines(r.stderr)).toEqual([
      expect.stringMatching(
        /^shop: run \d+ failed: unknown agent "nosuch": no agents\/nosuch\.md or \.claude\/agents\/nosuch\.md/,
      ),
    ]);
    expect(p.status(runId(r))).toMatchObject({ status: 'failed' });
  });
});

describe('shop watch with a run spinning in a sort comparator', () => {
  it('still completes the other run; the spinning one fails at its lua_timeout', async () => {
    const p = makeProject();
    p.write(
      'workflows/spin.lua',
      `config{ lua_timeout = 3 }\nfunction workflow(prompt)\n  pause("go?")\n  ${SORT_SPIN}\nend\n`,
    );
    p.write('workflows/fine.lua', 'function workflow(prompt)\n  pause("go?")\n  return "fine"\nend\n');
    const spin = runId(p.shop(['run', 'spin']));
    const fine = runId(p.shop(['run', 'fine']));
    const w = await startWorker(p);
    spawned.push(w);
    // The spinning run first, so the worker is inside its sort when the other answer comes.
    expect(p.shop(['approve', String(spin)]).code).toBe(0);
    expect(p.shop(['approve', String(fine)]).code).toBe(0);
    await until('the other run to complete', () => p.status(fine).status === 'completed', BOUND_MS);
    await until('the spinning run to fail', () => p.status(spin).status === 'failed', BOUND_MS);
    expect(p.status(spin)).toMatchObject({ reason: timeoutReason('spin.lua', 4, 3) });
    expect(p.status(fine)).toMatchObject({ result: 'fine' });
    expect(await stopWorker(w)).toBe(0);
  });
});
