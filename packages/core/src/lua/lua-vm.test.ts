import { describe, expect, it } from 'vitest';
import { UsageError } from '../errors.js';
import { oneThread, type TestStep } from './testing/one-thread.js';

const wf = (body: string, seed?: number) => {
  const w = oneThread(`function workflow(prompt)\n${body}\nend\n`, 'flow.lua', seed);
  return { w, logs: w.logs };
};
const done = (s: TestStep) => {
  if (s.kind !== 'done') throw new Error(`expected done, got ${JSON.stringify(s)}`);
  return s.value;
};
describe('LuaVm sandbox', () => {
  it('has no io, os, debug, load, dofile, loadstring or require', () => {
    const names = ['io', 'os', 'debug', 'load', 'dofile', 'loadstring', 'require', 'loadfile'];
    const { w } = wf(`return { ${names.map((n) => `${n} = type(${n})`).join(', ')}, str = type(string.format), tbl = type(table.insert) }`);
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
      request: { type: 'run', agent: 'reviewer', prompt: 'check', opts: { prompt: 'check', human: false, statuses: ['OK'] } },
    });
    expect(w.resume({ status: 'OK', summary: 'fine' })).toEqual({ kind: 'request', request: { type: 'pause', spec: { message: 'Approve?' } } });
    expect(w.resume({ continue: true })).toEqual({ kind: 'request', request: { type: 'sh', cmd: 'echo hi', argv: null, opts: {} } });
    expect(w.resume({ code: 0, stdout: 'hi\n', stderr: '' })).toEqual({ kind: 'request', request: { type: 'now' } });
    expect(done(w.resume(1700000000.5))).toEqual(['DONE', 'fine', true, 'hi\n', 1700000000.5]);
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
  const draws = 'local t = {}\nfor i = 1, 6 do t[#t + 1] = math.random(1, 1000) end\nt[#t + 1] = math.random()\nreturn t';

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
