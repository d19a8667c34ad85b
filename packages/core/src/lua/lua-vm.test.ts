import { describe, expect, it } from 'vitest';
import { DamagedLogError, UsageError } from '../errors.js';
import { LuaVm, VmFatal } from './lua-vm.js';
import { oneThread, type TestStep } from './testing/one-thread.js';
import { parseConfig } from './workflow-config.js';

const wf = (body: string, seed?: number) => {
  const w = oneThread(`function workflow(prompt)\n${body}\nend\n`, 'flow.lua', seed);
  return { w, logs: w.logs };
};
const done = (s: TestStep) => {
  if (s.kind !== 'done') throw new Error(`expected done, got ${JSON.stringify(s)}`);
  return s.value;
};
describe('LuaVm sandbox', () => {
  it('has no io, os, debug, load, dofile, loadstring or loadfile (require is its own: lua-require.test.ts)', () => {
    const names = ['io', 'os', 'debug', 'load', 'dofile', 'loadstring', 'loadfile', 'package'];
    const { w } = wf(
      `return { ${names.map((n) => `${n} = type(${n})`).join(', ')}, str = type(string.format), tbl = type(table.insert) }`,
    );
    const types = done(w.start('')) as Record<string, string>;
    for (const n of names) expect(types[n], n).toBe('nil');
    expect(types).toMatchObject({ str: 'function', tbl: 'function' });
  });

  it('sends print and log to the host log, not stdout', () => {
    const { w, logs } = wf('print("a", 1, true)\nlog("b")\nreturn prompt');
    expect(done(w.start('the prompt'))).toBe('the prompt');
    expect(logs).toEqual(['a\t1\ttrue', 'b']);
  });

  it('context() answers synchronously from the host', () => {
    const { w } = wf('return context().workspace');
    expect(done(w.start(''))).toBe('/w');
  });
});

describe('LuaVm host calls', () => {
  it('run, pause, sh and now yield typed requests and resume with the values given', () => {
    const { w } = wf(`
      local r = run("coder", "write it")
      local o = run("reviewer", { prompt = "check", human = false, statuses = { "OK" } })
      local p = pause("Approve?")
      local s = sh("echo hi")
      local t = now()
      return { r.status, o.summary, p.continue, s.stdout, t }`);
    const s1 = w.start('');
    expect(s1).toEqual({ kind: 'request', request: { type: 'run', agent: 'coder', prompt: 'write it', opts: {} } });
    const s2 = w.resume({ status: 'DONE' });
    expect(s2).toEqual({
      kind: 'request',
      request: {
        type: 'run',
        agent: 'reviewer',
        prompt: 'check',
        opts: { prompt: 'check', human: false, statuses: ['OK'] },
      },
    });
    expect(w.resume({ status: 'OK', summary: 'fine' })).toEqual({
      kind: 'request',
      request: { type: 'pause', spec: { message: 'Approve?' } },
    });
    expect(w.resume({ continue: true })).toEqual({
      kind: 'request',
      request: { type: 'sh', cmd: 'echo hi', argv: null, opts: {} },
    });
    expect(w.resume({ code: 0, stdout: 'hi\n', stderr: '' })).toEqual({ kind: 'request', request: { type: 'now' } });
    expect(done(w.resume(1700000000.5))).toEqual(['DONE', 'fine', true, 'hi\n', 1700000000.5]);
  });

  it('a result the caller keeps is handed to Lua; one a statement call drops is never made', () => {
    // Nested past what may cross into Lua: making it raises, so only a result that is made fails.
    let deep: unknown = 'bottom';
    for (let i = 0; i < 300; i++) deep = { inner: deep };
    const { w } = wf('run("a")\nlocal kept = run("b")\nreturn kept');
    expect(w.start('')).toMatchObject({ kind: 'request', request: { type: 'run', agent: 'a' } });
    expect(w.resume(deep)).toMatchObject({ kind: 'request', request: { type: 'run', agent: 'b' } });
    const s = w.resume(deep);
    expect(s.kind).toBe('error');
    expect((s as { message: string }).message).toMatch(
      /^flow\.lua:3: call\(\): its result is nested more than 200 levels deep/,
    );
  });

  it('a recorded result comes as its JSON: parsed only where Lua keeps it, and raising where it was recorded raising', () => {
    const w = oneThread(
      `function workflow()
  run("a")
  local ok, err = pcall(function() run("b") end)
  local kept = run("c")
  return { err, kept.summary }
end
`,
      'flow.lua',
      7,
      null,
      [
        // Never parsed: a statement call drops it.
        { json: 'not JSON at all' },
        { json: '{"__shop_raise":"run 7 (child) was stopped: no"}' },
        // Names the field in a value: parsed, and a plain value.
        { json: '{"summary":"it says \\"__shop_raise\\": yet is a value"}' },
      ],
    );
    expect(done(w.start(''))).toEqual([
      'flow.lua:3: run 7 (child) was stopped: no',
      'it says "__shop_raise": yet is a value',
    ]);
  });

  it('a kept recorded result that does not read as JSON (a store changed by hand) stops the VM with a DamagedLogError, past pcall', () => {
    const w = oneThread(
      'function workflow()\n  local ok = pcall(function() return run("a") end)\n  return ok\nend\n',
      'flow.lua',
      7,
      null,
      [{ json: '{bad' }],
    );
    expect(() => w.start('')).toThrow(DamagedLogError);
  });

  it('stuck(reason) yields a stuck request', () => {
    const { w } = wf('stuck("no way forward")\nreturn "unreachable"');
    expect(w.start('')).toEqual({ kind: 'request', request: { type: 'stuck', reason: 'no way forward' } });
  });

  it('run() with an unknown option raises an error naming it, at the caller line', () => {
    const { w } = wf('local x = 1\nrun("coder", { promt = "typo" })');
    const s = w.start('');
    expect(s.kind).toBe('error');
    expect((s as { message: string }).message).toMatch(/^flow\.lua:3: run\("coder", opts\): unknown key 'promt'/);
  });

  it('config{} with an unknown key raises an error naming it', () => {
    const { w } = wf('config{ human_escalation = false, human_timout = 5 }\nreturn 1');
    const s = w.start('');
    expect(s.kind).toBe('error');
    expect((s as { message: string }).message).toMatch(/^flow\.lua:2: config: .*'human_timout'/);
    expect(done(wf('config{ human_escalation = false }\nreturn 1').w.start(''))).toBe(1);
  });
});

describe('LuaVm errors', () => {
  it('a runtime error gives "name.lua:LINE: message"', () => {
    const { w } = wf('local a = 1\n  error("boom")');
    expect(w.start('')).toEqual({ kind: 'error', message: 'flow.lua:3: boom' });
    const { w: w2 } = wf('local t = nil\nreturn t.field');
    expect((w2.start('') as { message: string }).message).toMatch(/^flow\.lua:3: attempt to index a nil value/);
  });

  it('a runtime error after a resume still names the line', () => {
    const { w } = wf('local r = run("coder")\nreturn r.missing.deeper');
    w.start('');
    expect((w.resume({ status: 'DONE' }) as { message: string }).message).toMatch(/^flow\.lua:3: /);
  });

  it('a syntax error throws a UsageError with file:line', () => {
    const make = () => oneThread('function workflow(p)\n  local x =\nend\n', 'broken.lua');
    expect(make).toThrow(UsageError);
    expect(make).toThrow(/^broken\.lua:3: /);
  });

  it('a script without workflow() throws a UsageError', () => {
    const make = () => oneThread('function flow(p) return 1 end', 'nofn.lua');
    expect(make).toThrow(UsageError);
    expect(make).toThrow('nofn.lua does not define function workflow(prompt)');
  });
});

describe('LuaVm randomness', () => {
  const draws =
    'local t = {}\nfor i = 1, 6 do t[#t + 1] = math.random(1, 1000) end\nt[#t + 1] = math.random()\nreturn t';

  it('math.random gives the same sequence on a fresh VM with the same seed', () => {
    const a = done(wf(draws, 42).w.start('')) as number[];
    const b = done(wf(draws, 42).w.start('')) as number[];
    const c = done(wf(draws, 43).w.start('')) as number[];
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
    expect(a.slice(0, 6).every((n) => Number.isInteger(n) && n >= 1 && n <= 1000)).toBe(true);
    expect(a[6]).toBeGreaterThanOrEqual(0);
    expect(a[6]).toBeLessThan(1);
  });

  it('math.randomseed makes the sequence independent of the run seed', () => {
    const seeded = `math.randomseed(5)\n${draws}`;
    expect(done(wf(seeded, 1).w.start(''))).toEqual(done(wf(seeded, 2).w.start('')));
  });
});

describe('LuaVm and pure-Lua loops', () => {
  /** A host whose clock check says "yield" or raises after `ticks` looks. */
  function looping(body: string, verdict: (ticks: number) => 'go' | 'yield' | { error: string }) {
    let ticks = 0;
    const host = {
      call: () => null,
      log() {},
      context: () => ({}),
      config: () => null,
      random: () => 0,
      reseed() {},
      tick: () => verdict(++ticks),
    };
    const vm = new LuaVm(`function workflow(prompt)\n${body}\nend\n`, 'loop.lua', host);
    return { vm, main: vm.mainThread(''), ticks: () => ticks };
  }

  /** Resumes a thread until it stops for good, counting how often it was preempted on the way. */
  function toEnd(vm: LuaVm, main: ReturnType<LuaVm['mainThread']>) {
    let step = vm.resume(main, { kind: 'continue' });
    let preempted = 0;
    while (step.kind === 'preempted') {
      preempted++;
      step = vm.resume(main, { kind: 'continue' });
    }
    return { step, preempted };
  }

  it('a loop with no host call yields to the scheduler (preemption) and goes on where it was', () => {
    const { vm, main } = looping('local n = 0\nfor i = 1, 200000 do n = n + 1 end\nreturn n', (t) =>
      t % 20 === 0 ? 'yield' : 'go',
    );
    const { step, preempted } = toEnd(vm, main);
    expect(preempted).toBeGreaterThan(2);
    expect(step).toEqual({ kind: 'done' });
    expect(vm.result(main)).toEqual({ value: 200000 });
  });

  it('lua_timeout cannot be caught by pcall: the VM stops with file:line of the loop', () => {
    const { vm, main } = looping('while true do\n  pcall(function() while true do end end)\nend', (t) =>
      t > 5 ? { error: 'too long' } : 'go',
    );
    expect(() => vm.resume(main, { kind: 'continue' })).toThrow(VmFatal);
    expect(() => vm.resume(main, { kind: 'continue' })).toThrow(/^loop\.lua:3: too long$/);
  });

  it('a loop inside a sort comparator yields to the scheduler too (table.sort is Lua), and the sort goes on', () => {
    const { vm, main } = looping(
      'local t = {5, 3, 9, 1, 7}\ntable.sort(t, function(a, b) for i = 1, 5000 do end return a > b end)\nreturn t',
      (n) => (n % 3 === 0 ? 'yield' : 'go'),
    );
    const { step, preempted } = toEnd(vm, main);
    expect(preempted).toBeGreaterThan(2);
    expect(step).toEqual({ kind: 'done' });
    expect(vm.result(main)).toEqual({ value: [9, 7, 5, 3, 1] });
  });

  it('a loop in a gsub replacement function yields to the scheduler too, and gsub goes on where it was', () => {
    const body = 'return (("abc"):gsub("%a", function(c) for i = 1, 5000 do end return c:upper() .. "." end))';
    const { vm, main } = looping(body, (n) => (n % 3 === 0 ? 'yield' : 'go'));
    const { step, preempted } = toEnd(vm, main);
    expect(preempted).toBeGreaterThan(2);
    expect(step).toEqual({ kind: 'done' });
    expect(vm.result(main)).toEqual({ value: 'A.B.C.' });
  });

  it('lua_timeout where no yield is possible (a __tostring) is not caught by pcall either, nor by xpcall', () => {
    const body =
      'local o = setmetatable({}, { __tostring = function() while true do end end })\nwhile true do\n  pcall(tostring, o)\n  xpcall(tostring, function(m) return m end, o)\nend';
    const { vm, main } = looping(body, (t) => (t > 5 ? { error: 'too long' } : 'go'));
    expect(() => vm.resume(main, { kind: 'continue' })).toThrow(/^loop\.lua:2: too long$/);
  });

  it('sorts as Lua 5.3 does: default order, comparator, errors at the caller line', () => {
    const w = oneThread(`function workflow(p)
  local a = {5, 2, 8, 1, 9, 3, 3, 7, 0, 6, 4}
  table.sort(a)
  local b = {"pear", "fig", "apple", "kiwi"}
  table.sort(b, function(x, y) return #x < #y or (#x == #y and x < y) end)
  local big = {}
  for i = 1, 500 do big[i] = (i * 7919) % 1000 end
  table.sort(big)
  local sorted = true
  for i = 2, #big do sorted = sorted and big[i - 1] <= big[i] end
  local ok1, e1 = pcall(table.sort, {1, "x", 2})
  local ok2, e2 = pcall(table.sort, {3, 2, 1}, 5)
  local ok3, e3 = pcall(function() table.sort({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, function() return true end) end)
  return { a, b, sorted, e1, e2, e3 }
end
`);
    expect(w.start('')).toEqual({
      kind: 'done',
      value: [
        [0, 1, 2, 3, 3, 4, 5, 6, 7, 8, 9],
        ['fig', 'kiwi', 'pear', 'apple'],
        true,
        'attempt to compare string with number',
        "bad argument #2 to 'sort' (function expected, got number)",
        'flow.lua:13: invalid order function for sorting',
      ],
    });
  });

  it('host calls while the file loads are refused, naming workflow()', () => {
    expect(() => oneThread('run("coder")\nfunction workflow(p) end')).toThrow(
      /^flow\.lua:1: run\(\) can only be called inside workflow\(\)/,
    );
  });
});

describe('config{} keys', () => {
  const problem = (table: string) => {
    const s = oneThread(`config${table}\nfunction workflow(p) return 1 end\n`, 'flow.lua');
    return s.start('');
  };
  const refused = (table: string) => {
    try {
      oneThread(`config${table}\nfunction workflow(p) return 1 end\n`, 'flow.lua');
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  };

  it('accepts every key of the contract', () => {
    expect(
      problem(`{ human_escalation = false, max_parallel = 2, lua_timeout = 5, human_timeout = 3600, on_timeout = "default",
      remind_after = 600, escalate_after = 1800, escalate_to = { "command:page-oncall" }, notify = { "desktop", "webhook:https://example.com/hook" },
      notify_on_waiting = "desktop", auto_approve = { { awaiting = "checkpoint" }, { agent = "linter" } }, budget_usd = 5 }`),
    ).toEqual({ kind: 'done', value: 1 });
  });

  it('refuses an unknown key, a bad value, a bad notifier and an escalation with no one to tell — by name', () => {
    expect(refused('{ human_timout = 5 }')).toMatch(
      /^flow\.lua:1: config: unknown key 'human_timout' \(known: human_escalation, /,
    );
    expect(refused('{ on_timeout = "later" }')).toMatch(/^flow\.lua:1: config: on_timeout: /);
    expect(refused('{ notify = { "smtp:x" } }')).toMatch(
      /^flow\.lua:1: config: notify: "smtp:x" is not a notifier \(use desktop, webhook:<url>/,
    );
    expect(refused('{ escalate_after = 60 }')).toMatch(
      /^flow\.lua:1: config: escalate_to: escalate_after needs escalate_to/,
    );
    expect(refused('{ auto_approve = { {} } }')).toMatch(
      /^flow\.lua:1: config: auto_approve\.0: a rule needs at least one of awaiting, agent, pause, call/,
    );
    expect(refused('{ budget_usd = -1 }')).toMatch(/^flow\.lua:1: config: budget_usd: /);
    expect(refused('{ gates = { hold = { "Bash" }, allow = { "Bash npm test" } } }')).toMatch(
      /^flow\.lua:1: config: gates: gate "Bash npm test" must look like Tool or Tool\(argument glob\)/,
    );
    expect(refused('{ gates = { hold = { "Bash" }, deny = { "x" } } }')).toMatch(
      /^flow\.lua:1: config: gates: unknown key 'deny' \(a block has hold and allow\)/,
    );
  });

  it('reads gates as a list (held) or as a { hold, allow } block (held by default)', () => {
    expect(parseConfig({ gates: ['Bash(rm -rf *)'] })).toEqual({ gates: [{ hold: ['Bash(rm -rf *)'], allow: [] }] });
    expect(parseConfig({ gates: { hold: ['Bash'], allow: ['Bash(npm test*)'] } })).toEqual({
      gates: [{ hold: ['Bash'], allow: ['Bash(npm test*)'] }],
    });
    expect(problem('{ gates = { hold = { "Bash" }, allow = { "Bash(npm test*)" } } }')).toEqual({
      kind: 'done',
      value: 1,
    });
  });
});
