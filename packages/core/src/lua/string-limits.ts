import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { pushOwnedString } from './lua-internals.js';
import { raise } from './lua-raise.js';

const { lua, lauxlib, to_luastring } = fengari;

const MAXSIZE = 2147483647;
/** "200 MB", "70000 bytes". */
export const size = (bytes: number) =>
  bytes >= 1024 * 1024 ? `${Math.round(bytes / 1024 / 1024)} MB` : `${bytes} bytes`;

/** What a string function asks of the run's Lua memory (lua-memory.ts) as it works. */
export interface StringBounds {
  /** Before making `bytes` of string: raises "not enough memory" (naming `what`) past the run's cap. */
  reserve(L: LuaState, bytes: number, what: string): void;
  /** Work done, in bytes (or their worth): a look at the clock every so often (lua_timeout, stop). */
  worked(L: LuaState, bytes: number): void;
}

/** The message a string function raises when its result would pass the run's Lua memory cap. */
export function overCap(what: string, bytes: number, cap: number): string {
  return `not enough memory: ${what} would make a string of ${size(bytes)}, over the run's Lua memory cap of ${size(cap)} (config{ lua_memory_mb = … })`;
}

/**
 * string.rep, checked against the run's Lua memory cap before anything is made: fengari's
 * took 15 s to build 200 MB (nothing could stop it), and the string then aborted Node.
 * Built by doubling copies, so a large allowed one is quick.
 */
export function installStringRep(L: LuaState, bounds: StringBounds): void {
  lua.lua_getglobal(L, to_luastring('string'));
  lua.lua_pushcfunction(L, (T: LuaState) => {
    const s: Uint8Array = lauxlib.luaL_checkstring(T, 1);
    const n = Number(lauxlib.luaL_checkinteger(T, 2));
    const sep: Uint8Array = lauxlib.luaL_optstring(T, 3, to_luastring(''));
    if (n <= 0 || (s.length === 0 && sep.length === 0)) {
      lua.lua_pushstring(T, to_luastring(''));
      return 1;
    }
    const unit = s.length + sep.length;
    if (unit > MAXSIZE / n) return raise(T, 'resulting string too large');
    const total = n * s.length + (n - 1) * sep.length;
    bounds.reserve(T, total, 'string.rep');
    const out = new Uint8Array(total);
    out.set(s, 0);
    if (n > 1) out.set(sep, s.length);
    // Copies of one unit, then the copies doubled until the string is full.
    let filled = Math.min(unit, total);
    while (filled < total) {
      const len = Math.min(filled, total - filled);
      out.copyWithin(filled, 0, len);
      filled += len;
      bounds.worked(T, len);
    }
    pushOwnedString(T, out);
    return 1;
  });
  lua.lua_setfield(L, -2, to_luastring('rep'));
  lua.lua_pop(L, 1);
}

/** What looking up one element of a table is worth in bytes of work (~1 µs). */
const ELEMENT_WORK = 256;

/**
 * table.concat as fengari's (a table, a separator, a range; strings and numbers only), its
 * result checked against the run's Lua memory cap before it is made: joining many strings
 * made one too large for Node.
 */
export function installTableConcat(L: LuaState, bounds: StringBounds): void {
  lua.lua_getglobal(L, to_luastring('table'));
  lua.lua_pushcfunction(L, (T: LuaState) => {
    lauxlib.luaL_checktype(T, 1, lua.LUA_TTABLE);
    const sep: Uint8Array = lauxlib.luaL_optlstring(T, 2, to_luastring(''));
    const first = Number(lauxlib.luaL_optinteger(T, 3, 1));
    const last = lua.lua_isnoneornil(T, 4) ? Number(lauxlib.luaL_len(T, 1)) : Number(lauxlib.luaL_checkinteger(T, 4));
    const parts: Uint8Array[] = [];
    let total = 0;
    for (let i = first; i <= last; i++) {
      lua.lua_geti(T, 1, i);
      if (!lua.lua_isstring(T, -1)) {
        return raise(
          T,
          `invalid value (${fengari.to_jsstring(lauxlib.luaL_typename(T, -1))}) at index ${i} in table for 'concat'`,
        );
      }
      const bytes: Uint8Array = lua.lua_tolstring(T, -1);
      lua.lua_pop(T, 1);
      parts.push(bytes);
      total += bytes.length + (i < last ? sep.length : 0);
      bounds.worked(T, ELEMENT_WORK);
    }
    bounds.reserve(T, total, 'table.concat');
    const out = new Uint8Array(total);
    let at = 0;
    parts.forEach((part, k) => {
      out.set(part, at);
      at += part.length;
      if (k < parts.length - 1) {
        out.set(sep, at);
        at += sep.length;
      }
    });
    pushOwnedString(T, out);
    return 1;
  });
  lua.lua_setfield(L, -2, to_luastring('concat'));
  lua.lua_pop(L, 1);
}
