import { describe, expect, it } from 'vitest';
import fengari from './patched-fengari.js';
import { census } from './lua-census.js';

const { lua, lauxlib, lualib, to_luastring } = fengari;
const MiB = 1024 * 1024;

function stateAfter(code: string) {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  if (lauxlib.luaL_dostring(L, to_luastring(code)) !== lua.LUA_OK) throw new Error(lua.lua_tojsstring(L, -1));
  return L;
}

describe('census of what a Lua state can still reach', () => {
  const base = census(stateAfter('')).bytes;

  it('counts a string once however often it is referenced, and garbage not at all', () => {
    const shared = census(stateAfter('local s = ("x"):rep(1024 * 1024) T = {} for i = 1, 100 do T[i] = s end'));
    expect(shared.stringBytes).toBeGreaterThanOrEqual(MiB);
    expect(shared.stringBytes).toBeLessThan(MiB + 64 * 1024);
    const dropped = census(stateAfter('local n = 0 for i = 1, 20 do n = n + #(("x"):rep(1024 * 1024)) end'));
    expect(dropped.stringBytes).toBeLessThan(64 * 1024);
  });

  it('reaches strings held only by upvalues, closure constants and metatables', () => {
    for (const code of [
      'local s = ("u"):rep(1024 * 1024) F = function() return s end',
      'F = function() return "' + 'k'.repeat(100_000) + '" end',
      'T = setmetatable({}, { big = ("m"):rep(1024 * 1024) })',
    ])
      expect(census(stateAfter(code)).stringBytes, code.slice(0, 40)).toBeGreaterThanOrEqual(100_000);
  });

  it('reaches values on a thread stack', () => {
    const L = stateAfter('');
    const T = lua.lua_newthread(L);
    lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    lua.lua_pushstring(T, new Uint8Array(MiB));
    expect(census(L).stringBytes).toBeGreaterThanOrEqual(MiB);
  });

  it('estimates tables by their entries, walks cycles and nesting 100,000 deep without recursion', () => {
    const wide = census(stateAfter('T = {} for i = 1, 100000 do T[i] = { i = i } end')).bytes - base;
    // ~770 bytes an entry on Node 20 (a table of one field in a slot); within reason of it.
    expect(wide / 100000).toBeGreaterThan(500);
    expect(wide / 100000).toBeLessThan(1100);
    const deep =
      census(stateAfter('local t = {} T = t for i = 1, 100000 do t.next = {} t = t.next end t.next = T')).bytes - base;
    expect(deep).toBeGreaterThan(100000 * 450);
  });
});
