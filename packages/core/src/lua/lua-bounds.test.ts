import { describe, expect, it } from 'vitest';
import { LuaVm, VmFatal, type VmHost } from './lua-vm.js';

/**
 * The bounds of one run's Lua inside single operations: a string function, `..`, a table
 * growing, a metamethod calling itself. Before, a call was one instruction to the count
 * hook however long it worked, `..` and the string functions allocated unchecked, and only
 * the whole process's heap was watched.
 */

const MiB = 1024 * 1024;

/** A VM whose host counts looks at the clock and answers them with `verdict`; a cap in MiB. */
function vmWith(
  body: string,
  opts: { capMiB?: number; verdict?: (looks: number) => 'go' | 'yield' | { error: string } } = {},
) {
  let looks = 0;
  const logs: string[] = [];
  const host: VmHost = {
    call: () => null,
    context: () => ({}),
    config: () => null,
    random: () => 0,
    reseed() {},
    log: (_t, m) => logs.push(m),
    tick: () => (opts.verdict ?? (() => 'go'))(++looks),
    memoryCapBytes: () => (opts.capMiB ?? 256) * MiB,
  };
  const vm = new LuaVm(`function workflow(prompt)\n${body}\nend\n`, 'ops.lua', host);
  const main = vm.mainThread('');
  /** Resumes until the thread stops for good; counts preemptions. */
  const toEnd = () => {
    let step = vm.resume(main, { kind: 'continue' });
    let preempted = 0;
    while (step.kind === 'preempted') {
      preempted++;
      step = vm.resume(main, { kind: 'continue' });
    }
    return { step, preempted, result: step.kind === 'done' ? vm.result(main) : null };
  };
  return { toEnd, looks: () => looks, logs };
}

describe('a string operation looks at the clock as it goes', () => {
  it('one upper() of 16 MiB looks many times (it was one instruction: no look at all)', () => {
    const w = vmWith('local s = ("x"):rep(16 * 1024 * 1024)\nreturn #s:upper() + #s:lower() + #s:reverse()');
    expect(w.toEnd().result).toEqual({ value: 48 * MiB });
    expect(w.looks()).toBeGreaterThanOrEqual(40);
  });

  it('lua_timeout inside upper() ends it at its line, past pcall', () => {
    const w = vmWith(
      'local s = ("x"):rep(16 * 1024 * 1024)\nfor i = 1, 3 do pcall(string.upper, s) end\nreturn "went on"',
      { verdict: (n) => (n > 5 ? { error: 'too long' } : 'go') },
    );
    expect(() => w.toEnd()).toThrow(VmFatal);
  });

  it('the message names the line of the call', () => {
    const w = vmWith('local s = ("x"):rep(16 * 1024 * 1024)\nlocal u = s:upper()\nreturn "went on"', {
      verdict: (n) => (n > 5 ? { error: 'too long' } : 'go'),
    });
    expect(() => w.toEnd()).toThrow(/^ops\.lua:3: too long$/);
  });

  it('a slice over inside an operation yields the thread right after it (stop and Ctrl-C are seen)', () => {
    const w = vmWith(
      'local s = ("x"):rep(4 * 1024 * 1024)\nlocal n = 0\nfor i = 1, 3 do n = n + #(s .. "!"):upper() end\nreturn n',
      { verdict: () => 'yield' },
    );
    const { preempted, result } = w.toEnd();
    expect(result).toEqual({ value: 3 * (4 * MiB + 1) });
    expect(preempted).toBeGreaterThanOrEqual(3);
  });

  it("lua_timeout inside table.sort (the sandbox's own Lua) names the line of the sort, not a line of the sandbox", () => {
    const w = vmWith('local t = {}\nfor i = 1, 20000 do t[i] = (i * 7919) % 20000 end\ntable.sort(t)\nreturn t[1]', {
      verdict: (n) => (n > 1000 ? { error: 'too long' } : 'go'),
    });
    expect(() => w.toEnd()).toThrow(/^ops\.lua:4: too long$/);
  });

  it('a pattern scan over a long subject looks too', () => {
    const w = vmWith('local s = ("ab"):rep(4 * 1024 * 1024)\nreturn s:find("b+c")', {
      verdict: (n) => (n > 30 ? { error: 'too long' } : 'go'),
    });
    expect(() => w.toEnd()).toThrow(/^ops\.lua:3: too long$/);
  });
});

describe("a run's Lua memory is capped", () => {
  it('`..` doubling fails at the cap, at its line, before making the string', () => {
    const w = vmWith('local s = ("x"):rep(1024 * 1024)\nfor i = 1, 6 do\n  s = s .. s\nend\nreturn #s', { capMiB: 16 });
    const { step } = w.toEnd();
    expect(step).toEqual({
      kind: 'error',
      message: expect.stringMatching(
        /^ops\.lua:4: not enough memory: `\.\.` would make a string of 16 MB while the run's Lua values hold 8 MB, over the run's Lua memory cap of 16 MB \(config\{ lua_memory_mb = … \}\)$/,
      ),
    });
  });

  it('strings kept in a table count against the cap; the same strings dropped do not', () => {
    const kept = vmWith('local s, t = ("x"):rep(1024 * 1024), {}\nfor i = 1, 40 do t[i] = s:upper() end\nreturn #t', {
      capMiB: 16,
    });
    expect(kept.toEnd().step).toEqual({
      kind: 'error',
      message: expect.stringMatching(
        /^ops\.lua:3: not enough memory: string\.upper would make a string of 1 MB while the run's Lua values hold 1[56] MB, over the run's Lua memory cap of 16 MB/,
      ),
    });
    const dropped = vmWith(
      'local s, n = ("x"):rep(1024 * 1024), 0\nfor i = 1, 40 do n = n + #s:upper() end\nreturn n',
      { capMiB: 16 },
    );
    expect(dropped.toEnd().result).toEqual({ value: 40 * MiB });
  });

  it('a string copied by a fengari function (sub, format) counts too', () => {
    const w = vmWith(
      'local s, t = ("x"):rep(1024 * 1024), {}\nfor i = 1, 40 do t[i] = string.format("%s!", s) end\nreturn #t',
      { capMiB: 16 },
    );
    expect(w.toEnd().step).toEqual({
      kind: 'error',
      message: expect.stringMatching(
        /^ops\.lua:3: not enough memory: format\(\) would make a string of 2 MB while the run's Lua values hold 1\d MB/,
      ),
    });
  });

  it('a table growing past the cap fails the run at its line, past pcall', () => {
    const w = vmWith('local t = {}\npcall(function()\n  for i = 1, 400000 do t[i] = { i = i } end\nend)\nreturn #t', {
      capMiB: 16,
    });
    // Tables are counted when the JS heap has grown (garbage collection decides when): past the
    // cap, found before the run holds twice it.
    expect(() => w.toEnd()).toThrow(
      /^ops\.lua:4: not enough memory: the run's Lua values hold (1[6-9]|2\d|3[01]) MB \(tables, strings, functions\), over the run's Lua memory cap of 16 MB/,
    );
  });
});

describe('errors that named no line', () => {
  for (const [how, call] of [
    ['tostring', 'tostring(self)'],
    ['print', 'print(self)'],
    ['string.format', 'string.format("%s", self)'],
  ] as const) {
    it(`a __tostring calling ${how} on itself fails at its line`, () => {
      const w = vmWith(
        `local t = setmetatable({}, { __tostring = function(self)\n  return ${call} or ""\nend })\nreturn tostring(t)`,
      );
      expect(w.toEnd().step).toEqual({
        kind: 'error',
        message: expect.stringMatching(
          /^ops\.lua:3: stack overflow: calls nested more than 200 deep through metamethods or library functions/,
        ),
      });
    });
  }

  it('a __concat calling .. on itself fails at its line', () => {
    const w = vmWith(
      'local t = setmetatable({}, { __concat = function(a, b)\n  return a .. b\nend })\nreturn t .. "x"',
    );
    expect(w.toEnd().step).toEqual({ kind: 'error', message: expect.stringMatching(/^ops\.lua:3: stack overflow/) });
  });

  it('error() with a huge message ends the run with its start, not a huge JS string', () => {
    const w = vmWith('error(("e"):rep(8 * 1024 * 1024))');
    const { step } = w.toEnd();
    expect(step.kind).toBe('error');
    expect((step as { message: string }).message.length).toBeLessThanOrEqual(4096);
    expect((step as { message: string }).message).toMatch(/^ops\.lua:2: eeee/);
  });
});

describe('log() and print() lines', () => {
  it('a line over 64 KiB is cut, saying how long it was; the run goes on', () => {
    const w = vmWith('log(("L"):rep(20 * 1024 * 1024))\nprint("a", ("b"):rep(70000))\nreturn "went on"');
    expect(w.toEnd().result).toEqual({ value: 'went on' });
    expect(w.logs[0]).toBe(`${'L'.repeat(65536)}… [cut: the line had 20 MB; a log line keeps its first 64 KiB]`);
    expect(w.logs[1]).toBe(
      `a\t${'b'.repeat(65534)}… [cut: the line had 70002 bytes; a log line keeps its first 64 KiB]`,
    );
  });
});
