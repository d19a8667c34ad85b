import fengari from './patched-fengari.js';
import { describe, expect, it } from 'vitest';
import { ConversionError, MAX_DEPTH, pushJs, toJs } from './convert.js';

const { lua, lauxlib, lualib, to_luastring } = fengari;

/** The value a Lua expression evaluates to, read as JS. */
function read(expr: string): unknown {
  const L = lauxlib.luaL_newstate();
  lualib.luaL_openlibs(L);
  if (lauxlib.luaL_dostring(L, to_luastring(`return ${expr}`)) !== lua.LUA_OK)
    throw new Error(lua.lua_tojsstring(L, -1));
  return toJs(L, -1);
}

const nestLua = (n: number) =>
  `(function() local t = {} local c = t for i = 1, ${n} do c.x = {} c = c.x end return t end)()`;
const nestJs = (n: number): unknown => (n === 0 ? { v: 1 } : { x: nestJs(n - 1) });
const depthOf = (v: unknown): number =>
  v && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;

describe('Lua → JS', () => {
  it('reads tables nested 10 and 150 deep (each level needs stack room)', () => {
    expect(depthOf(read(nestLua(10)))).toBe(11);
    expect(depthOf(read(nestLua(150)))).toBe(151);
  });

  it(`refuses more than ${MAX_DEPTH} levels with a path, not a stack overflow`, () => {
    expect(() => read(nestLua(MAX_DEPTH + 5))).toThrow(ConversionError);
    try {
      read(nestLua(MAX_DEPTH + 5));
    } catch (e) {
      expect((e as ConversionError).describe()).toMatch(/^is nested more than 200 levels deep \(at \.x\.x\.x.*…\)$/);
    }
  });

  it('refuses a cyclic table, naming where the cycle closes; a shared (acyclic) table is fine', () => {
    let err: ConversionError | null = null;
    try {
      read('(function() local t = { a = { b = {} } } t.a.b.back = t return t end)()');
    } catch (e) {
      err = e as ConversionError;
    }
    expect(err?.describe()).toBe('is cyclic: a table contains itself (at .a.b.back)');
    expect(read('(function() local s = { 1 } return { p = s, q = s } end)()')).toEqual({ p: [1], q: [1] });
  });

  it('keeps arrays, maps and scalars as before', () => {
    expect(read('{ 1, "two", true, { k = 1.5 } }')).toEqual([1, 'two', true, { k: 1.5 }]);
    expect(read('{ [1] = "a", [3] = "c" }')).toEqual({ 1: 'a', 3: 'c' });
    expect(read('{}')).toEqual({});
  });
});

describe('JS → Lua', () => {
  it('pushes values nested 150 deep and reads them back', () => {
    const L = lauxlib.luaL_newstate();
    pushJs(L, nestJs(150));
    expect(toJs(L, -1)).toEqual(nestJs(150));
  });

  it(`refuses more than ${MAX_DEPTH} levels, leaving the stack as it was`, () => {
    const L = lauxlib.luaL_newstate();
    const top = lua.lua_gettop(L);
    expect(() => pushJs(L, nestJs(MAX_DEPTH + 1))).toThrow(/nested more than 200 levels deep/);
    expect(lua.lua_gettop(L)).toBe(top);
  });
});

describe('JS → Lua: numbers', () => {
  /** A value pushed into Lua, then a Lua expression over it (`v`), read back. */
  function roundTrip(value: unknown, expr: string): unknown {
    const L = lauxlib.luaL_newstate();
    lualib.luaL_openlibs(L);
    pushJs(L, value);
    lua.lua_setglobal(L, to_luastring('v'));
    if (lauxlib.luaL_dostring(L, to_luastring(`return ${expr}`)) !== lua.LUA_OK)
      throw new Error(lua.lua_tojsstring(L, -1));
    return toJs(L, -1);
  }

  it("keeps whole numbers past Lua's 32-bit integers (GitHub's ids) as numbers, exact", () => {
    expect(roundTrip({ id: 6120051870, small: 42 }, 'v')).toEqual({ id: 6120051870, small: 42 });
    expect(roundTrip({ id: 6120051870 }, 'v.id + 1')).toBe(6120051871);
    expect(roundTrip(-(2 ** 40), 'v')).toBe(-(2 ** 40));
    expect(roundTrip(42, 'math.type(v)')).toBe('integer');
  });
});
