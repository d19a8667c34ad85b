import { readFileSync } from 'node:fs';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killLeftovers, lines, makeProject, runId, trail, until, type Background, type Project } from './harness.js';

/**
 * Regression tests: the bounds hold inside one expensive operation. Before, 150 upper()s
 * of a 64 MiB string ran ~28 s past the 10 s lua_timeout and shop stop left the driver
 * computing; `..` doubling passed 6 GB of RSS; 200 upper()s of 10 MB kept peaked at 2 GB
 * against the 256 MiB cap; log() of 200 MiB killed Node; a 20 MiB log line was stored and
 * printed whole; a __tostring calling tostring(self) failed with "JS stack overflow" and no
 * line. Each repro here ends within its bound with one clear line, and the process lives.
 */

const spawned: Background[] = [];
afterEach(() => {
  for (const bg of spawned.splice(0))
    if (bg.child.exitCode === null && bg.child.signalCode === null) bg.child.kill('SIGKILL');
});
afterAll(killLeftovers);

/** Past this a driver is taken for one that does not hold its bounds, and is killed (the machine is shared). */
const RSS_LIMIT_MB = 1500;

/** Peak resident memory of a live process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const m = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * `shop <args>` in the background, its peak RSS watched until it exits (killed past
 * RSS_LIMIT_MB or `ms`): the exit code, the seconds it took, the peak RSS, its output.
 */
async function watched(p: Project, args: string[], ms = 30_000) {
  const started = performance.now();
  const bg = p.spawnShop(args);
  spawned.push(bg);
  let peak = 0;
  let exit: number | null | 'over' = null;
  let done = false;
  void bg.exited.then((code) => {
    done = true;
    exit = exit ?? code;
  });
  while (!done) {
    try {
      peak = Math.max(peak, peakRssMb(bg.child.pid!));
    } catch {
      // Gone between the check and the read.
    }
    if (peak > RSS_LIMIT_MB || performance.now() - started > ms) {
      exit = 'over';
      bg.child.kill('SIGKILL');
      break;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  await bg.exited;
  return { exit, seconds: (performance.now() - started) / 1000, peakMb: peak, output: bg.output() };
}

const timeoutReason = (file: string, line: number, s: number) =>
  `${file}:${line}: ${s}s of Lua without a host call (an endless loop?); raise the limit with config{ lua_timeout = … } if it is meant`;
const capNote = "over the run's Lua memory cap of 256 MB (config{ lua_memory_mb = … })";

describe('lua_timeout, shop stop and Ctrl-C inside string operations', () => {
  it('150 upper()s of a 64 MiB string fail at the default 10 s lua_timeout, at their line', async () => {
    const p = makeProject();
    p.write(
      'workflows/upper.lua',
      'function workflow(prompt)\n  local s = ("x"):rep(64 * 1024 * 1024)\n  for i = 1, 150 do local u = s:upper() end\nend\n',
    );
    const r = await watched(p, ['run', 'upper']);
    expect(r.exit).toBe(1);
    // 10 s of Lua, plus start-up and one upper() at most; before, ~33 s (quiet).
    expect(r.seconds).toBeLessThan(20);
    const id = runId(r.output);
    expect(lines(r.output).at(-1)).toBe(`shop: run ${id} failed: ${timeoutReason('upper.lua', 3, 10)}`);
  }, 45_000);

  /** A run computing upper()s of a 64 MiB string for good, a second into it. */
  async function busy(p: Project): Promise<{ bg: Background; id: number }> {
    p.write(
      'workflows/busy.lua',
      'config{ lua_timeout = 120 }\nfunction workflow(prompt)\n  local s = ("x"):rep(64 * 1024 * 1024)\n  log("busy")\n  now()\n  while true do local u = s:upper() end\nend\n',
    );
    const bg = p.spawnShop(['run', 'busy']);
    spawned.push(bg);
    await until('the loop to start', () => bg.output().includes('  log: busy'));
    await new Promise((r) => setTimeout(r, 1000));
    return { bg, id: runId(bg.output()) };
  }

  /** Seconds from `from` until `bg` exits. */
  async function secondsToExit(bg: Background, from: number): Promise<{ code: number | null; seconds: number }> {
    const code = await bg.exited;
    return { code, seconds: (performance.now() - from) / 1000 };
  }

  // Quiet, shop stop's own start-up included: ~2 s to the driver's exit, Ctrl-C ~0.3 s; before,
  // the hook came once in 250 upper()s (~40 s). The bounds leave room for a loaded machine.
  it('shop stop ends a run busy in upper()s within a few seconds (its own start-up included)', async () => {
    const p = makeProject();
    const { bg, id } = await busy(p);
    const from = performance.now();
    // shop stop returns once the driver has carried the stop out.
    expect(p.shop(['stop', String(id), '--reason', 'R']).code).toBe(0);
    const { code, seconds } = await secondsToExit(bg, from);
    expect(code).toBe(4);
    expect(seconds).toBeLessThan(6);
    expect(p.status(id)).toMatchObject({ status: 'stuck', reason: 'R' });
  });

  it('Ctrl-C ends it within a second or two: exit 130, the run interrupted', async () => {
    const p = makeProject();
    const { bg, id } = await busy(p);
    const from = performance.now();
    bg.child.kill('SIGINT');
    const { code, seconds } = await secondsToExit(bg, from);
    expect(code).toBe(130);
    expect(seconds).toBeLessThan(3);
    expect(p.status(id)).toMatchObject({ status: 'interrupted' });
  });
});

describe("a run's Lua memory is capped for real", () => {
  it('`..` doubling fails at the cap with one line; RSS stays far below GBs', async () => {
    const p = makeProject();
    p.write(
      'workflows/dbl.lua',
      'config{ lua_timeout = 60 }\nfunction workflow(prompt)\n  local s = ("x"):rep(1024 * 1024)\n  while true do s = s .. s end\nend\n',
    );
    const r = await watched(p, ['run', 'dbl']);
    expect(r.exit).toBe(1);
    expect(lines(r.output).at(-1)).toBe(
      `shop: run ${runId(r.output)} failed: dbl.lua:4: not enough memory: \`..\` would make a string of 256 MB while the run's Lua values hold 128 MB, ${capNote}`,
    );
    expect(r.peakMb).toBeLessThan(700);
  });

  it('200 upper()s of 10 MB kept in a table fail at the cap', async () => {
    const p = makeProject();
    p.write(
      'workflows/keep.lua',
      'config{ lua_timeout = 60 }\nfunction workflow(prompt)\n  local s, t = ("x"):rep(10 * 1024 * 1024), {}\n  for i = 1, 200 do t[i] = s:upper() end\nend\n',
    );
    const kept = await watched(p, ['run', 'keep']);
    expect(kept.exit).toBe(1);
    expect(lines(kept.output).at(-1)).toMatch(
      new RegExp(
        `^shop: run \\d+ failed: keep\\.lua:4: not enough memory: string\\.upper would make a string of 10 MB while the run's Lua values hold 2[45]\\d MB, ${capNote.replace(/[(){}.]/g, '\\$&')}$`,
      ),
    );
    expect(kept.peakMb).toBeLessThan(700);
  });

  it('the same upper()s kept nowhere complete, past the cap in all, with RSS bounded (garbage does not count)', async () => {
    const p = makeProject();
    p.write(
      'workflows/drop.lua',
      'config{ lua_timeout = 60 }\nfunction workflow(prompt)\n  local s, n = ("x"):rep(10 * 1024 * 1024), 0\n  for i = 1, 40 do n = n + #s:upper() end\n  return n\nend\n',
    );
    const dropped = await watched(p, ['run', 'drop']);
    expect(dropped.exit).toBe(0);
    expect(lines(dropped.output).at(-1)).toBe(`run ${runId(dropped.output)} completed: ${40 * 10 * 1024 * 1024}`);
    expect(dropped.peakMb).toBeLessThan(500);
  });

  it('a 32 MiB string as a table key is quick (fengari spent seconds and GBs on each)', async () => {
    const p = makeProject();
    p.write(
      'workflows/key.lua',
      'config{ lua_timeout = 60 }\nfunction workflow(prompt)\n  local s, t = ("k"):rep(32 * 1024 * 1024), {}\n  for i = 1, 3 do t[s .. i] = i end\n  return t[s .. 2]\nend\n',
    );
    const r = await watched(p, ['run', 'key']);
    expect(r.exit).toBe(0);
    expect(lines(r.output).at(-1)).toBe(`run ${runId(r.output)} completed: 2`);
    expect(r.peakMb).toBeLessThan(700);
  });
});

describe('log() lines', () => {
  const cutNote = (size: string) => `… [cut: the line had ${size}; a log line keeps its first 64 KiB]`;

  for (const [mib, file] of [
    [200, 'log200'],
    [20, 'log20'],
  ] as const) {
    it(`a ${mib} MiB line is stored and printed cut, with a note; the run goes on and Node lives`, async () => {
      const p = makeProject();
      p.write(
        `workflows/${file}.lua`,
        `function workflow(prompt)\n  log(("L"):rep(${mib} * 1024 * 1024))\n  return "went on"\nend\n`,
      );
      const r = await watched(p, ['run', file]);
      expect(r.exit).toBe(0);
      const id = runId(r.output);
      const line = `${'L'.repeat(65536)}${cutNote(`${mib} MB`)}`;
      expect(lines(r.output)).toEqual([
        `run ${id} started (${file})`,
        `  log: ${line}`,
        `run ${id} completed: "went on"`,
      ]);
      expect(
        trail(p, id)
          .filter((e) => e.type === 'log')
          .map((e) => e.data),
      ).toEqual([{ message: line }]);
    });
  }
});

describe('a __tostring that calls tostring(self)', () => {
  it('fails the run at its line, not with "JS stack overflow"', () => {
    const p = makeProject();
    p.write(
      'workflows/ts.lua',
      'function workflow(prompt)\n  local t = setmetatable({}, { __tostring = function(self)\n    return tostring(self)\n  end })\n  return tostring(t)\nend\n',
    );
    const r = p.shop(['run', 'ts']);
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `shop: run ${runId(r)} failed: ts.lua:3: stack overflow: calls nested more than 200 deep through metamethods or library functions (does a __tostring, __index or __concat call itself?)`,
    ]);
  });
});
