import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { loadSandboxChunk } from './sandbox-chunk.js';

const { lua, to_luastring } = fengari;

/** The chunk name of Shop's own Lua in the sandbox: an error's "file:LINE" never points there. */
export const SANDBOX_CHUNK = '(sandbox)';

/**
 * Lua written in Lua so that the scheduler can preempt it. A sort comparator called from
 * fengari's table.sort (JS) runs where a thread cannot yield: a loop in it ignored stop,
 * SIGTERM and Ctrl-C. Here the comparator is called from a Lua frame, which can yield.
 * The algorithm is Lua 5.3's auxsort, but its pivot never comes from Math.random, so the
 * order of equal elements is the same on replay.
 *
 * pcall and xpcall re-raise once the VM is doomed (lua_timeout decided where a thread
 * could not yield): a script must not catch its own end and loop on.
 */
const PRELUDE = `
local raw_pcall, raw_xpcall, doomed, lt = ...
local type, error, select, format = type, error, select, string.format
local INVALID = "invalid order function for sorting"

local function checked(ok, ...)
  if not ok then doomed() end
  return ok, ...
end
pcall = function(f, ...) return checked(raw_pcall(f, ...)) end
xpcall = function(f, h, ...) return checked(raw_xpcall(f, h, ...)) end

-- depth: how many auxsort frames lie between this one and sort (for the caller's line).
local function auxsort(t, lo, up, less, depth)
  while lo < up do
    if less(t[up], t[lo]) then t[lo], t[up] = t[up], t[lo] end
    if up - lo == 1 then return end
    local p = (lo + up) // 2
    if less(t[p], t[lo]) then t[p], t[lo] = t[lo], t[p]
    elseif less(t[up], t[p]) then t[p], t[up] = t[up], t[p] end
    if up - lo == 2 then return end
    local P = t[p]
    t[p], t[up - 1] = t[up - 1], P
    local i, j = lo, up - 1
    while true do
      i = i + 1
      while less(t[i], P) do
        if i == up - 1 then error(INVALID, depth + 2) end
        i = i + 1
      end
      j = j - 1
      while less(P, t[j]) do
        if j < i then error(INVALID, depth + 2) end
        j = j - 1
      end
      if j < i then
        t[up - 1], t[i] = t[i], P
        break
      end
      t[i], t[j] = t[j], t[i]
    end
    p = i
    if p - lo < up - p then
      auxsort(t, lo, p - 1, less, depth + 1)
      lo = p + 1
    else
      auxsort(t, p + 1, up, less, depth + 1)
      up = p - 1
    end
  end
end

table.sort = function(...)
  local t, comp = ...
  if type(t) ~= "table" then
    error(format("bad argument #1 to 'sort' (table expected, got %s)", select("#", ...) == 0 and "no value" or type(t)), 2)
  end
  local n = #t
  if n > 1 then
    if comp ~= nil and type(comp) ~= "function" then
      error(format("bad argument #2 to 'sort' (function expected, got %s)", type(comp)), 2)
    end
    auxsort(t, 1, n, comp or lt, 1)
  end
end
`;

/**
 * Installs the prelude into the sandbox. `doomMessage` says whether the VM is doomed (and
 * with what message, raised again at every pcall that caught it).
 */
export function installPrelude(L: LuaState, doomMessage: () => string | null): void {
  if (loadSandboxChunk(L, PRELUDE, `=${SANDBOX_CHUNK}`) !== lua.LUA_OK) {
    throw new Error(`the sandbox prelude does not compile: ${lua.lua_tojsstring(L, -1)}`);
  }
  lua.lua_getglobal(L, to_luastring('pcall'));
  lua.lua_getglobal(L, to_luastring('xpcall'));
  lua.lua_pushcfunction(L, (T: LuaState) => {
    const message = doomMessage();
    if (message === null) return 0;
    lua.lua_pushstring(T, to_luastring(message));
    return lua.lua_error(T);
  });
  // The default order: a < b, its error message as table.sort's own ("attempt to compare …").
  lua.lua_pushcfunction(L, (T: LuaState) => {
    lua.lua_pushboolean(T, lua.lua_compare(T, 1, 2, lua.LUA_OPLT));
    return 1;
  });
  lua.lua_call(L, 4, 0);
}
