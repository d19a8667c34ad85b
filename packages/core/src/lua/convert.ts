import fengari from 'fengari';

const { lua, lauxlib, to_luastring } = fengari;
export type LuaState = unknown;

/** Reads the Lua value at `idx` as plain JSON-able data (tables with keys 1..n become arrays). */
export function toJs(L: LuaState, idx: number, depth = 0): unknown {
  if (depth > 64) throw new Error('table nested too deeply (or cyclic)');
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return null;
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, idx);
    case lua.LUA_TNUMBER:
      return lua.lua_isinteger(L, idx) ? Number(lua.lua_tointeger(L, idx)) : lua.lua_tonumber(L, idx);
    case lua.LUA_TSTRING:
      return lua.lua_tojsstring(L, idx);
    case lua.LUA_TTABLE:
      return tableToJs(L, lua.lua_absindex(L, idx), depth);
    default:
      return `<${fengari.to_jsstring(lauxlib.luaL_typename(L, idx))}>`;
  }
}

function tableToJs(L: LuaState, idx: number, depth: number): unknown {
  const entries: [string | number, unknown][] = [];
  lua.lua_pushnil(L);
  while (lua.lua_next(L, idx) !== 0) {
    const key = lua.lua_type(L, -2) === lua.LUA_TNUMBER ? Number(lua.lua_tonumber(L, -2)) : String(toJs(L, -2, depth + 1));
    entries.push([key, toJs(L, -1, depth + 1)]);
    lua.lua_pop(L, 1);
  }
  const isArray = entries.length > 0 && entries.every(([k]) => typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= entries.length);
  if (isArray) {
    const out: unknown[] = new Array(entries.length);
    for (const [k, v] of entries) out[(k as number) - 1] = v;
    return out;
  }
  return Object.fromEntries(entries.map(([k, v]) => [String(k), v]));
}

/** Pushes plain data onto the Lua stack (objects and arrays become tables, null nil). */
export function pushJs(L: LuaState, value: unknown): void {
  if (value === null || value === undefined) lua.lua_pushnil(L);
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  else if (typeof value === 'number') {
    if (Number.isInteger(value)) lua.lua_pushinteger(L, value);
    else lua.lua_pushnumber(L, value);
  } else if (typeof value === 'string') lua.lua_pushstring(L, to_luastring(value));
  else if (Array.isArray(value)) {
    lua.lua_createtable(L, value.length, 0);
    value.forEach((v, i) => {
      pushJs(L, v);
      lua.lua_rawseti(L, -2, i + 1);
    });
  } else if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    lua.lua_createtable(L, 0, entries.length);
    for (const [k, v] of entries) {
      pushJs(L, v);
      lua.lua_setfield(L, -2, keyString(k));
    }
  } else lua.lua_pushstring(L, to_luastring(String(value)));
}

/** Table keys repeat (status, summary, session_id …): convert each to a Lua string once. */
const keyStrings = new Map<string, Uint8Array>();
function keyString(k: string): Uint8Array {
  let ls = keyStrings.get(k);
  if (!ls) {
    ls = to_luastring(k) as Uint8Array;
    if (keyStrings.size < 1024) keyStrings.set(k, ls);
  }
  return ls;
}
