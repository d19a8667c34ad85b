import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { isdigit, match, MatchState, PatternError } from './pattern-match.js';
import { raise } from './lua-raise.js';
import { overCap } from './string-limits.js';
import { pushOwnedString } from './lua-internals.js';
import { BASE_STEPS, matcher, pushCapture, type PatternLimits } from './string-matcher.js';

const { lua, lauxlib, to_luastring } = fengari;

interface GsubState {
  ms: MatchState;
  limits: PatternLimits;
  tr: number;
  src: number;
  lastmatch: number | null;
  n: number;
  maxS: number;
  anchor: boolean;
  parts: Uint8Array[];
  bytes: number;
  cap: number | null;
  /** The match whose replacement function is being called. */
  mStart: number;
  mEnd: number;
  /** The subject is copied up to here: what lies between matches is copied in one piece. */
  copied: number;
}

/**
 * string.gsub as Lua 5.3 (fengari) does it. A replacement function is called with
 * lua_callk: where the caller can yield, so can the function (stop, Ctrl-C, lua_timeout),
 * and gsub goes on in the continuation. The result is capped by the Lua memory cap.
 */
export function gsub(L: LuaState, limits: PatternLimits): number {
  const src: Uint8Array = lauxlib.luaL_checkstring(L, 1);
  let p: Uint8Array = lauxlib.luaL_checkstring(L, 2);
  const tr = lua.lua_type(L, 3);
  const maxS = Number(lauxlib.luaL_optinteger(L, 4, src.length + 1));
  const ok = tr === lua.LUA_TNUMBER || tr === lua.LUA_TSTRING || tr === lua.LUA_TFUNCTION || tr === lua.LUA_TTABLE;
  lauxlib.luaL_argcheck(L, ok, 3, to_luastring('string/function/table expected'));
  const anchor = p[0] === 94;
  if (anchor) p = p.subarray(1);
  const st: GsubState = {
    ms: matcher(L, limits, src, p, BASE_STEPS + 16 * src.length),
    limits,
    tr,
    src: 0,
    lastmatch: null,
    n: 0,
    maxS,
    anchor,
    parts: [],
    bytes: 0,
    cap: limits.maxStringBytes(),
    mStart: 0,
    mEnd: 0,
    copied: 0,
  };
  return loop(L, st);
}

function loop(L: LuaState, st: GsubState): number {
  const { ms } = st;
  const s = ms.src;
  while (st.n < st.maxS) {
    ms.reprep();
    const e = match(ms, st.src, 0);
    if (e !== null && e !== st.lastmatch) {
      st.n++;
      add(L, st, s.subarray(st.copied, st.src));
      st.copied = e;
      st.mStart = st.src;
      st.mEnd = e;
      if (st.tr === lua.LUA_TFUNCTION) {
        lua.lua_pushvalue(L, 3);
        const n = pushCaptures(L, ms, st.src, e);
        lua.lua_callk(L, n, 1, st, continuation);
        addValue(L, st);
      } else if (st.tr === lua.LUA_TTABLE) {
        pushCapture(L, ms, 0, st.src, e);
        lua.lua_gettable(L, 3);
        addValue(L, st);
      } else addString(L, st);
      st.src = st.lastmatch = e;
    } else if (st.src < s.length) st.src++;
    else break;
    if (st.anchor) break;
  }
  return finish(L, st);
}

const continuation = (L: LuaState, _status: number, st: GsubState): number => {
  try {
    addValue(L, st);
    st.src = st.lastmatch = st.mEnd;
    return st.anchor ? finish(L, st) : loop(L, st);
  } catch (e) {
    if (e instanceof PatternError) return raise(L, e.message);
    throw e;
  }
};

function finish(L: LuaState, st: GsubState): number {
  const s = st.ms.src;
  add(L, st, s.subarray(st.copied));
  st.limits.reserve(L, st.bytes, 'string.gsub');
  const out = new Uint8Array(st.bytes);
  let at = 0;
  for (const part of st.parts) {
    out.set(part, at);
    at += part.length;
  }
  pushOwnedString(L, out);
  lua.lua_pushinteger(L, st.n);
  return 2;
}

function add(L: LuaState, st: GsubState, bytes: Uint8Array) {
  if (!bytes.length) return;
  st.bytes += bytes.length;
  if (st.cap !== null && st.bytes > st.cap) raise(L, overCap('string.gsub', st.bytes, st.cap));
  st.parts.push(bytes);
}

function pushCaptures(L: LuaState, ms: MatchState, s: number, e: number): number {
  const n = ms.level === 0 ? 1 : ms.level;
  lauxlib.luaL_checkstack(L, n, to_luastring('too many captures'));
  for (let i = 0; i < n; i++) pushCapture(L, ms, i, s, e);
  return n;
}

/** The value a function or table gave for the match: nil/false keep the match as it was. */
function addValue(L: LuaState, st: GsubState) {
  const { ms } = st;
  if (!lua.lua_toboolean(L, -1)) {
    lua.lua_pop(L, 1);
    add(L, st, ms.src.subarray(st.mStart, st.mEnd));
    return;
  }
  if (!lua.lua_isstring(L, -1)) {
    const type = fengari.to_jsstring(lauxlib.luaL_typename(L, -1));
    raise(L, `invalid replacement value (a ${type})`);
  }
  add(L, st, Uint8Array.from(lua.lua_tolstring(L, -1)));
  lua.lua_pop(L, 1);
}

/** A replacement string: %0 the match, %1-%9 the captures, %% a percent sign. */
function addString(L: LuaState, st: GsubState) {
  const { ms } = st;
  const news: Uint8Array = lua.lua_tolstring(L, 3);
  for (let i = 0; i < news.length; i++) {
    if (news[i] !== 37) {
      const next = news.indexOf(37, i);
      const end = next === -1 ? news.length : next;
      add(L, st, news.subarray(i, end));
      i = end - 1;
      continue;
    }
    i++;
    if (!isdigit(news[i])) {
      if (news[i] !== 37) throw new PatternError("invalid use of '%' in replacement string");
      add(L, st, news.subarray(i, i + 1));
    } else if (news[i] === 48) add(L, st, ms.src.subarray(st.mStart, st.mEnd));
    else {
      pushCapture(L, ms, news[i] - 49, st.mStart, st.mEnd);
      lauxlib.luaL_tolstring(L, -1);
      add(L, st, Uint8Array.from(lua.lua_tolstring(L, -1)));
      lua.lua_pop(L, 2);
    }
  }
}
