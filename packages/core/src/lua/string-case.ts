import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { pushOwnedString } from './lua-internals.js';
import type { StringBounds } from './string-limits.js';

const { lua, lauxlib, to_luastring } = fengari;

/** Bytes mapped between two reports of work (a look at the clock is due every 1 MiB or so). */
const CHUNK = 256 * 1024;

/**
 * string.upper, lower and reverse as fengari's (bytes; only ASCII letters change case), made
 * a piece at a time with the run's bounds told as they go: fengari's ran 150 upper()s of a
 * 64 MiB string for 28 s past a 10 s lua_timeout (the count hook never ran: a call is one
 * instruction), and copied each result once more to push it.
 */
export function installStringCase(L: LuaState, bounds: StringBounds): void {
  lua.lua_getglobal(L, to_luastring('string'));
  const set = (name: string, fn: (T: LuaState) => number) => {
    lua.lua_pushcfunction(L, fn);
    lua.lua_setfield(L, -2, to_luastring(name));
  };
  set('upper', (T) => mapBytes(T, bounds, 'string.upper', UPPER));
  set('lower', (T) => mapBytes(T, bounds, 'string.lower', LOWER));
  set('reverse', (T) => {
    const s: Uint8Array = lauxlib.luaL_checkstring(T, 1);
    bounds.reserve(T, s.length, 'string.reverse');
    const out = new Uint8Array(s.length);
    for (let at = 0; at < s.length; at += CHUNK) {
      const end = Math.min(s.length, at + CHUNK);
      for (let i = at; i < end; i++) out[i] = s[s.length - 1 - i];
      bounds.worked(T, end - at);
    }
    pushOwnedString(T, out);
    return 1;
  });
  lua.lua_pop(L, 1);
}

function caseTable(from: number): Uint8Array {
  const t = new Uint8Array(256);
  for (let c = 0; c < 256; c++) t[c] = c >= from && c < from + 26 ? c ^ 0x20 : c;
  return t;
}
const UPPER = caseTable(97);
const LOWER = caseTable(65);

function mapBytes(T: LuaState, bounds: StringBounds, what: string, table: Uint8Array): number {
  const s: Uint8Array = lauxlib.luaL_checkstring(T, 1);
  bounds.reserve(T, s.length, what);
  const out = new Uint8Array(s.length);
  for (let at = 0; at < s.length; at += CHUNK) {
    const end = Math.min(s.length, at + CHUNK);
    for (let i = at; i < end; i++) out[i] = table[s[i]];
    bounds.worked(T, end - at);
  }
  pushOwnedString(T, out);
  return 1;
}
