import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { LuaVm, VmFatal, type VmHost } from './lua-vm.js';
import { memoryModules } from './testing/memory-modules.js';
import { oneThread, type TestStep } from './testing/one-thread.js';

/** A workflow whose workflow() body is `body`, with these module files under workflows/lib. */
function flow(body: string, files: Record<string, string>, top = '') {
  const modules = memoryModules(files);
  const w = oneThread(`${top}function workflow(prompt)\n${body}\nend\n`, 'flow.lua', 7, modules);
  return { w, modules };
}
const failed = (s: TestStep) => {
  if (s.kind !== 'error') throw new Error(`expected an error, got ${JSON.stringify(s)}`);
  return s.message;
};
const done = (s: TestStep) => {
  if (s.kind !== 'done') throw new Error(`expected done, got ${JSON.stringify(s)}`);
  return s.value;
};

const HELPERS = 'local M = {}\nlog("helpers loaded")\nfunction M.branch(name) return "shop/" .. name end\nreturn M\n';

describe('require(name)', () => {
  it('loads workflows/lib/<dots as folders>.lua once: a second require gives the same value, and the file is read once', () => {
    const { w, modules } = flow(
      'local a = require("git.helpers")\nlocal b = require("git.helpers")\nreturn { a == b, a.branch("x") }',
      { 'git/helpers.lua': HELPERS },
    );
    expect(done(w.start(''))).toEqual([true, 'shop/x']);
    expect(w.logs).toEqual(['helpers loaded']);
    expect(modules.reads.get('git/helpers.lua')).toBe(1);
  });

  it('gives true for a module that returns nothing (and keeps false as false); the module sees its name and file as ...', () => {
    const { w } = flow('return { require("side"), require("no"), seen }', {
      'side.lua': 'seen = table.concat({ ... }, " ")\n',
      'no.lua': 'return false\n',
    });
    expect(done(w.start(''))).toEqual([true, false, 'side workflows/lib/side.lua']);
  });

  it('works at the top of the file: its functions are there for workflow()', () => {
    const { w } = flow('return h.branch(prompt)', { 'h.lua': HELPERS }, 'h = require("h")\n');
    expect(done(w.start('fix'))).toBe('shop/fix');
  });

  it('a host call in a module yields the calling thread like one written in the workflow', () => {
    const { w } = flow('local review = require("review")\nreturn review.twice("x")', {
      'review.lua':
        'local M = {}\nfunction M.twice(what)\n  local a = run("reviewer", what)\n  return a.status .. "+" .. run("reviewer", what .. "!").status\nend\nreturn M\n',
    });
    expect(w.start('')).toEqual({
      kind: 'request',
      request: { type: 'run', agent: 'reviewer', prompt: 'x', opts: {} },
    });
    expect(w.resume({ status: 'OK' })).toEqual({
      kind: 'request',
      request: { type: 'run', agent: 'reviewer', prompt: 'x!', opts: {} },
    });
    expect(done(w.resume({ status: 'DONE' }))).toBe('OK+DONE');
  });

  it("a module's top-level host calls run in the thread that requires it (inside workflow())", () => {
    const { w } = flow('local v = require("ask")\nreturn v', { 'ask.lua': 'return pause("Go?").continue\n' });
    expect(w.start('')).toEqual({ kind: 'request', request: { type: 'pause', spec: { message: 'Go?' } } });
    expect(done(w.resume({ continue: true }))).toBe(true);
  });
});

describe('require: errors name the module file and line', () => {
  it('a syntax error: the require line, then the module file and line', () => {
    const { w } = flow('\nreturn require("git.helpers")', {
      'git/helpers.lua': 'local M = {}\n\nM.x = = 1\nreturn M\n',
    });
    expect(failed(w.start(''))).toBe(
      `flow.lua:3: require("git.helpers"): workflows/lib/git/helpers.lua:3: unexpected symbol near '=' (fix the Lua syntax in workflows/lib/git/helpers.lua)`,
    );
  });

  it('a runtime error while it loads, and one in a module function called later', () => {
    const loading = flow('return require("bad")', { 'bad.lua': 'local x = 1\nerror("no config")\n' });
    expect(failed(loading.w.start(''))).toBe('workflows/lib/bad.lua:2: no config');
    const later = flow('local m = require("m")\nreturn m.go()', {
      'm.lua': 'local M = {}\nfunction M.go()\n  return nil .. "x"\nend\nreturn M\n',
    });
    expect(failed(later.w.start(''))).toBe('workflows/lib/m.lua:3: attempt to concatenate a nil value');
  });

  it("an error at load is not kept: a pcall'd require tries again", () => {
    const { w } = flow(
      'local ok1, e = pcall(require, "flaky")\nlocal ok2, v = pcall(require, "flaky")\nreturn { ok1, ok2, v }',
      { 'flaky.lua': 'tries = (tries or 0) + 1\nif tries == 1 then error("first time") end\nreturn tries\n' },
    );
    expect(done(w.start(''))).toEqual([false, true, 2]);
  });

  it.each([
    ['', 'a module name may not be empty'],
    ['../secrets', 'a module name is parts of letters'],
    ['git/helpers', 'a module name is parts of letters'],
    ['/etc/passwd', 'a module name is parts of letters'],
    ['a..b', 'a module name is parts of letters'],
    ['.hidden', 'a module name is parts of letters'],
    ['x'.repeat(201), 'a module name is at most 200 characters (this one has 201)'],
    ['wörk', 'a module name is parts of letters'],
  ])('a bad name %j is refused at the require line, nothing read', (name, problem) => {
    const { w, modules } = flow(`\nreturn require(${JSON.stringify(name)})`, { 'x.lua': 'return 1' });
    expect(failed(w.start(''))).toMatch(
      new RegExp(`^flow\\.lua:3: require\\(".*"\\): ${problem.replace(/[()]/g, '\\$&')}`),
    );
    expect(modules.reads.size).toBe(0);
  });

  it('a name that is not a string', () => {
    const { w } = flow('return require({})', {});
    expect(failed(w.start(''))).toBe('flow.lua:2: require(name): the name must be a string, not a table');
  });

  it('a missing module names the file looked for', () => {
    const { w } = flow('return require("git.nope")', {});
    expect(failed(w.start(''))).toBe(
      'flow.lua:2: require("git.nope"): no module file workflows/lib/git/nope.lua (create it, or fix the name)',
    );
  });

  it('a require cycle says so with the chain, at the line that closes it', () => {
    const { w } = flow('return require("a")', {
      'a.lua': 'return require("b")\n',
      'b.lua': 'local x = 1\nreturn require("a")\n',
    });
    expect(failed(w.start(''))).toBe(
      'workflows/lib/b.lua:2: require("a"): a require cycle: a → b → a; a module cannot require one that is still loading it (move what both need into a third module)',
    );
  });

  it('a module loading while the file loads may not make host calls (as the file itself may not)', () => {
    expect(() => flow('return 1', { 'ask.lua': '\nreturn pause("Go?")\n' }, 'require("ask")\n')).toThrow(UsageError);
    expect(() => flow('return 1', { 'ask.lua': '\nreturn pause("Go?")\n' }, 'require("ask")\n')).toThrow(
      /^workflows\/lib\/ask\.lua:2: pause\(\) can only be called inside workflow\(\), not while the file loads \(while loading flow\.lua\)$/,
    );
  });
});

describe("require: a module runs under the run's bounds", () => {
  it('lua_timeout in a module loop names the module line', () => {
    let looks = 0;
    const host: VmHost = {
      call: () => null,
      context: () => ({}),
      config: () => null,
      random: () => 0,
      reseed() {},
      log() {},
      tick: () => (++looks > 3 ? { error: 'too long' } : 'go'),
    };
    const vm = new LuaVm(
      'function workflow(p)\n  return require("spin")\nend\n',
      'flow.lua',
      host,
      false,
      memoryModules({ 'spin.lua': 'local n = 0\nwhile true do\n  n = n + 1\nend\n' }),
    );
    expect(() => vm.resume(vm.mainThread(''), { kind: 'continue' })).toThrow(
      new VmFatal('workflows/lib/spin.lua:3: too long'),
    );
  });

  it('string bounds hold in a module as in the workflow (lua_memory_mb)', () => {
    const host: VmHost = {
      call: () => null,
      context: () => ({}),
      config: () => null,
      random: () => 0,
      reseed() {},
      log() {},
      tick: () => 'go',
      memoryCapBytes: () => 1024 * 1024,
    };
    const vm = new LuaVm(
      'function workflow(p)\n  return require("big")\nend\n',
      'flow.lua',
      host,
      false,
      memoryModules({ 'big.lua': '\nreturn ("x"):rep(4 * 1024 * 1024)\n' }),
    );
    const step = vm.resume(vm.mainThread(''), { kind: 'continue' });
    expect(step).toMatchObject({ kind: 'error', message: expect.stringMatching(/^workflows\/lib\/big\.lua:2: /) });
  });
});

describe('require across threads (parallel branches)', () => {
  const quiet: VmHost = {
    call: () => null,
    tick: () => 'go',
    context: () => ({}),
    config: () => null,
    random: () => 0,
    reseed() {},
    log() {},
  };
  const SLOW = { 'slow.lua': 'return pause("wait").continue\n' };
  const branchesOf = (vm: LuaVm) => {
    const step = vm.resume(vm.mainThread(''), { kind: 'continue' });
    if (step.kind !== 'call') throw new Error(`expected parallel, got ${step.kind}`);
    return step.branches;
  };

  it('a module still loading in one branch (its top level waits on a call) is refused in another, at its line', () => {
    const vm = new LuaVm(
      'function workflow(p)\n  return parallel(function() return require("slow") end,\n    function()\n      return require("slow") end)\nend\n',
      'flow.lua',
      quiet,
      false,
      memoryModules(SLOW),
    );
    const [a, b] = branchesOf(vm);
    expect(vm.resume(a, { kind: 'continue' })).toMatchObject({ kind: 'call', request: { type: 'pause' } });
    expect(vm.resume(b, { kind: 'continue' })).toEqual({
      kind: 'error',
      message:
        'flow.lua:4: require("slow"): slow is still loading in another thread (its top-level code waits on a host call); require it before the parallel() whose branches need it',
    });
    expect(vm.resume(a, { kind: 'values', values: [{ continue: true }] })).toEqual({ kind: 'done' });
    expect(vm.result(a)).toEqual({ value: true });
  });

  it('a branch cancelled while its module loads leaves it loadable by another', () => {
    const vm = new LuaVm(
      'function workflow(p)\n  return parallel(function() return require("slow") end, function() return 1 end)\nend\n',
      'flow.lua',
      quiet,
      false,
      memoryModules(SLOW),
    );
    const [a] = branchesOf(vm);
    expect(vm.resume(a, { kind: 'continue' })).toMatchObject({ kind: 'call', request: { type: 'pause' } });
    vm.release(a);
    const [again] = branchesOf(vm);
    expect(vm.resume(again, { kind: 'continue' })).toMatchObject({ kind: 'call', request: { type: 'pause' } });
  });

  it('a module loaded by one branch is the same value in the next', () => {
    const vm = new LuaVm(
      'function workflow(p)\n  local x, y = parallel(function() return require("m") end, function() return require("m") end)\n  return x == y\nend\n',
      'flow.lua',
      quiet,
      false,
      memoryModules({ 'm.lua': 'return {}' }),
    );
    const main = vm.mainThread('');
    const step = vm.resume(main, { kind: 'continue' });
    if (step.kind !== 'call') throw new Error('expected parallel');
    for (const b of step.branches) expect(vm.resume(b, { kind: 'continue' })).toEqual({ kind: 'done' });
    expect(vm.resume(main, { kind: 'branches', threads: step.branches })).toEqual({ kind: 'done' });
    expect(vm.result(main)).toEqual({ value: true });
  });
});
