import fengari from './patched-fengari.js';
import { describe, expect, it } from 'vitest';
import { installStringRep, installTableConcat } from './string-limits.js';
import { boundsFor } from './testing/bounded-state.js';

const { lua, lauxlib, lualib, to_luastring } = fengari;

function state(ours: boolean) {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  if (ours) {
    // A cap well above what the state itself holds (its libraries: ~70 KB).
    const bounds = boundsFor(L, 500_000);
    installStringRep(L, bounds);
    installTableConcat(L, bounds);
  }
  return L;
}

function run(L: unknown, code: string): string {
  lauxlib.luaL_loadbuffer(L, to_luastring(code), null, to_luastring('=t'));
  const status = lua.lua_pcall(L, 0, 1, 0);
  const v = lua.lua_tojsstring(L, -1);
  lua.lua_pop(L, 1);
  return `${status === lua.LUA_OK ? 'ok' : 'error'}: ${v}`;
}

describe('string.rep and table.concat under the Lua memory cap', () => {
  it('do what fengari does below the cap, errors included', () => {
    const theirs = state(false);
    const ours = state(true);
    for (const c of [
      'table.concat({1,2,3})',
      'table.concat({1,"a",3.5}, ", ")',
      'table.concat({1,2,3,4}, "-", 2, 3)',
      'table.concat({1,2,3}, "-", 3, 2)',
      'table.concat({1,{},3})',
      'table.concat({}, "x")',
      'table.concat(nil)',
      'table.concat({"a","b"}, "-", 1, 5)',
      'table.concat({"x"}, 5)',
      'string.rep("ab", 3, ",")',
      'string.rep("", 5)',
      'string.rep("ab", 0)',
      'string.rep("a", 3, "")',
      'string.rep("ab", 1, ",")',
      'string.rep("abc", 33)',
      'string.rep(5, 2)',
      'string.rep("a")',
    ])
      expect(run(ours, `return ${c}`), c).toBe(run(theirs, `return ${c}`));
  });

  it('refuse a result past the cap at the caller line, before making it', () => {
    const ours = state(true);
    const over = (what: string, n: number) =>
      `error: t:1: not enough memory: ${what} would make a string of ${n} bytes, over the run's Lua memory cap of 500000 bytes (config{ lua_memory_mb = … })`;
    expect(run(ours, 'return string.rep("ab", 300000)')).toBe(over('string.rep', 600000));
    expect(run(ours, 'return string.rep("y", 1 << 30)')).toBe(
      over('string.rep', 2 ** 30).replace(`${2 ** 30} bytes`, '1024 MB'),
    );
    expect(run(ours, 'local s, t = ("x"):rep(30000), {} for i = 1, 20 do t[i] = s end return table.concat(t)')).toBe(
      over('table.concat', 600000),
    );
  });
});
