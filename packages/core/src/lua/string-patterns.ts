import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { match, MatchState, PatternError } from './pattern-match.js';
import { raise } from './lua-raise.js';
import { gsub } from './string-gsub.js';
import { matcher, pushCapture, stepsFor, type PatternLimits } from './string-matcher.js';

const { lua, lauxlib, to_luastring } = fengari;

/**
 * string.find, match, gmatch and gsub on our own matcher (pattern-match.ts): the same Lua
 * 5.3 semantics as fengari's, with a step budget, and a gsub whose replacement function is
 * called where the thread can yield (lua_callk), so stop and Ctrl-C reach a loop inside it.
 */

const SPECIALS = new Set([...'^$*+?.([%-'].map((c) => c.charCodeAt(0)));

function guarded(fn: (L: LuaState) => number): (L: LuaState) => number {
  return (L) => {
    try {
      return fn(L);
    } catch (e) {
      if (e instanceof PatternError) return raise(L, e.message);
      throw e;
    }
  };
}

function posrelat(pos: number, len: number): number {
  if (pos >= 0) return pos;
  if (-pos > len) return 0;
  return len + pos + 1;
}

/** Pushes the captures (or the whole match when there are none, and s is given). */
function pushCaptures(L: LuaState, ms: MatchState, s: number | null, e: number): number {
  const n = ms.level === 0 && s !== null ? 1 : ms.level;
  lauxlib.luaL_checkstack(L, n, to_luastring('too many captures'));
  for (let i = 0; i < n; i++) pushCapture(L, ms, i, s ?? 0, e);
  return n;
}

function plainFind(s: Uint8Array, p: Uint8Array, from: number): number {
  if (p.length === 0) return from;
  outer: for (let i = s.indexOf(p[0], from); i !== -1 && i + p.length <= s.length; i = s.indexOf(p[0], i + 1)) {
    for (let k = 1; k < p.length; k++) if (s[i + k] !== p[k]) continue outer;
    return i;
  }
  return -1;
}

function findAux(L: LuaState, find: boolean, limits: PatternLimits): number {
  const s: Uint8Array = lauxlib.luaL_checkstring(L, 1);
  let p: Uint8Array = lauxlib.luaL_checkstring(L, 2);
  let init = posrelat(Number(lauxlib.luaL_optinteger(L, 3, 1)), s.length);
  if (init < 1) init = 1;
  else if (init > s.length + 1) {
    lua.lua_pushnil(L);
    return 1;
  }
  if (find && (lua.lua_toboolean(L, 4) || !p.some((c) => SPECIALS.has(c)))) {
    const f = plainFind(s, p, init - 1);
    if (f > -1) {
      lua.lua_pushinteger(L, f + 1);
      lua.lua_pushinteger(L, f + p.length);
      return 2;
    }
  } else {
    let s1 = init - 1;
    const anchor = p[0] === 94;
    if (anchor) p = p.subarray(1);
    const ms = matcher(L, limits, s, p, stepsFor(s));
    do {
      ms.reprep();
      const res = match(ms, s1, 0);
      if (res !== null) {
        if (!find) return pushCaptures(L, ms, s1, res);
        lua.lua_pushinteger(L, s1 + 1);
        lua.lua_pushinteger(L, res);
        return pushCaptures(L, ms, null, 0) + 2;
      }
    } while (s1++ < s.length && !anchor);
  }
  lua.lua_pushnil(L);
  return 1;
}

function gmatch(L: LuaState, limits: PatternLimits): number {
  const s: Uint8Array = lauxlib.luaL_checkstring(L, 1);
  const p: Uint8Array = lauxlib.luaL_checkstring(L, 2);
  let src = 0;
  let lastmatch: number | null = null;
  lua.lua_pushcfunction(
    L,
    guarded((T: LuaState) => {
      // Each step of the iteration has a budget of its own: it is one call from Lua.
      const ms = matcher(T, limits, s, p, stepsFor(s));
      for (; src <= s.length; src++) {
        ms.reprep();
        const e = match(ms, src, 0);
        if (e !== null && e !== lastmatch) {
          const start = src;
          src = lastmatch = e;
          return pushCaptures(T, ms, start, e);
        }
      }
      return 0;
    }),
  );
  return 1;
}

export function installPatterns(L: LuaState, limits: PatternLimits): void {
  lua.lua_getglobal(L, to_luastring('string'));
  const set = (name: string, fn: (L: LuaState) => number) => {
    lua.lua_pushcfunction(L, guarded(fn));
    lua.lua_setfield(L, -2, to_luastring(name));
  };
  set('find', (T) => findAux(T, true, limits));
  set('match', (T) => findAux(T, false, limits));
  set('gmatch', (T) => gmatch(T, limits));
  set('gsub', (T) => gsub(T, limits));
  lua.lua_pop(L, 1);
}
