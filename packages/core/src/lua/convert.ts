import fengari from './patched-fengari.js';

const { lua, lauxlib, to_luastring } = fengari;

export type LuaState = unknown;

/** How deep a value crossing Lua↔JS may nest: far past real data, far below any stack limit. */
export const MAX_DEPTH = 200;

/**
 * Bytes of string a value handed from Lua to JS may hold: decoding a Lua string makes a JS
 * string, and a 200 MB one exhausted the V8 heap and aborted Node (exit 134).
 */
export const MAX_VALUE_BYTES = 16 * 1024 * 1024;

/** A value that cannot cross Lua↔JS: too deep, or cyclic. `path` says where (".a.b[2]"). */
export class ConversionError extends Error {
  readonly path: string[] = [];
  constructor(readonly problem: string) {
    super(problem);
  }
  /** "nested more than 200 levels deep (at .a.b…)". */
  describe(): string {
    const path = this.path.join('');
    return path ? `${this.problem} (at ${path.length > 80 ? `${path.slice(0, 77)}…` : path})` : this.problem;
  }
}

function segment(key: string | number): string {
  return typeof key === 'number' ? `[${key}]` : /^[A-Za-z_]\w*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
}

/** Reads the Lua value at `idx` as plain JSON-able data (tables with keys 1..n become arrays). */
export function toJs(L: LuaState, idx: number): unknown {
  return read(L, lua.lua_absindex(L, idx), [], { left: MAX_VALUE_BYTES });
}

type Budget = { left: number };

function read(L: LuaState, idx: number, ancestors: unknown[], budget: Budget): unknown {
  switch (lua.lua_type(L, idx)) {
    case lua.LUA_TNIL:
    case lua.LUA_TNONE:
      return null;
    case lua.LUA_TBOOLEAN:
      return lua.lua_toboolean(L, idx);
    case lua.LUA_TNUMBER:
      return lua.lua_isinteger(L, idx) ? Number(lua.lua_tointeger(L, idx)) : lua.lua_tonumber(L, idx);
    case lua.LUA_TSTRING: {
      budget.left -= lua.lua_rawlen(L, idx);
      if (budget.left < 0)
        throw new ConversionError(
          `holds more than ${MAX_VALUE_BYTES / 1024 / 1024} MiB of strings (a value handed from Lua to Shop may not; pass a file path instead)`,
        );
      return lua.lua_tojsstring(L, idx);
    }
    case lua.LUA_TTABLE:
      return readTable(L, idx, ancestors, budget);
    default:
      return `<${fengari.to_jsstring(lauxlib.luaL_typename(L, idx))}>`;
  }
}

function readTable(L: LuaState, idx: number, ancestors: unknown[], budget: Budget): unknown {
  const self = lua.lua_topointer(L, idx);
  if (ancestors.includes(self)) throw new ConversionError('is cyclic: a table contains itself');
  if (ancestors.length >= MAX_DEPTH) throw new ConversionError(`is nested more than ${MAX_DEPTH} levels deep`);
  // Each level holds a key and a value on the stack while it reads the next one.
  if (!lua.lua_checkstack(L, 3)) throw new ConversionError('is too large to read');
  ancestors.push(self);
  const entries: [string | number, unknown][] = [];
  let arrayLike = true;
  lua.lua_pushnil(L);
  while (lua.lua_next(L, idx) !== 0) {
    const numeric = lua.lua_type(L, -2) === lua.LUA_TNUMBER;
    const key: string | number = numeric
      ? Number(lua.lua_tonumber(L, -2))
      : String(read(L, lua.lua_absindex(L, -2), ancestors, budget));
    let value: unknown;
    try {
      value = read(L, lua.lua_absindex(L, -1), ancestors, budget);
    } catch (e) {
      if (e instanceof ConversionError) e.path.unshift(segment(key));
      lua.lua_pop(L, 2);
      ancestors.pop();
      throw e;
    }
    if (!numeric || !Number.isInteger(key) || (key as number) < 1) arrayLike = false;
    entries.push([key, value]);
    lua.lua_pop(L, 1);
  }
  ancestors.pop();
  if (arrayLike && entries.length > 0 && entries.every(([k]) => (k as number) <= entries.length)) {
    const out: unknown[] = new Array(entries.length);
    for (const [k, v] of entries) out[(k as number) - 1] = v;
    return out;
  }
  return Object.fromEntries(entries.map(([k, v]) => [String(k), v]));
}

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;

/** Pushes plain data onto the Lua stack (objects and arrays become tables, null nil). */
export function pushJs(L: LuaState, value: unknown): void {
  push(L, value, 0);
}

function push(L: LuaState, value: unknown, depth: number): void {
  if (value === null || value === undefined) lua.lua_pushnil(L);
  else if (typeof value === 'boolean') lua.lua_pushboolean(L, value);
  else if (typeof value === 'number') {
    // fengari's integers are 32-bit: a whole number past them (a GitHub id) goes in as a float, exact to 2^53.
    if (Number.isInteger(value) && value >= INT32_MIN && value <= INT32_MAX) lua.lua_pushinteger(L, value);
    else lua.lua_pushnumber(L, value);
  } else if (typeof value === 'string') pushString(L, value);
  else if (typeof value === 'object') {
    if (depth >= MAX_DEPTH) throw new ConversionError(`is nested more than ${MAX_DEPTH} levels deep`);
    // The table, a key, its value, and room to intern a string (a copy, the registry's free list).
    if (!lua.lua_checkstack(L, 5)) throw new ConversionError('is too large to hand to Lua');
    pushTable(L, value as object, depth);
  } else lua.lua_pushstring(L, to_luastring(String(value)));
}

function pushTable(L: LuaState, value: object, depth: number): void {
  const list = Array.isArray(value);
  const entries: [string | number, unknown][] = list ? value.map((v, i) => [i + 1, v]) : Object.entries(value);
  lua.lua_createtable(L, list ? entries.length : 0, list ? 0 : entries.length);
  for (const [k, v] of entries) {
    try {
      push(L, v, depth + 1);
    } catch (e) {
      if (e instanceof ConversionError) e.path.unshift(segment(list ? (k as number) : String(k)));
      lua.lua_pop(L, 1);
      throw e;
    }
    if (list) lua.lua_rawseti(L, -2, k as number);
    else {
      // A new table has no metatable: a raw set is what lua_setfield would do, minus a lookup.
      pushString(L, k as string);
      lua.lua_insert(L, -2);
      lua.lua_rawset(L, -3);
    }
  }
}

/** Strings this short repeat (keys such as status and summary, values such as DONE). */
const INTERN_LENGTH = 32;
const INTERN_COUNT = 4096;
const interned = new WeakMap<object, Map<string, number>>();

/**
 * Pushes a JS string. A short one is made a Lua string once per Lua state and kept in the
 * registry: replaying thousands of results pushes the same keys and statuses again and
 * again, and making each anew (encoding, copying, hashing) was most of the cost.
 */
function pushString(L: LuaState, s: string): void {
  if (s.length > INTERN_LENGTH) return void lua.lua_pushstring(L, to_luastring(s));
  const global = (L as { l_G: object }).l_G;
  let refs = interned.get(global);
  if (!refs) interned.set(global, (refs = new Map()));
  const ref = refs.get(s);
  if (ref !== undefined) return void lua.lua_rawgeti(L, lua.LUA_REGISTRYINDEX, ref);
  lua.lua_pushstring(L, to_luastring(s));
  if (refs.size >= INTERN_COUNT) return;
  lua.lua_pushvalue(L, -1);
  refs.set(s, lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX));
}
