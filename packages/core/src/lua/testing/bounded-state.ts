import fengari, { setPatchedSites } from '../patched-fengari.js';
import { LuaMemory } from '../lua-memory.js';
import type { PatternLimits } from '../string-matcher.js';

const { lauxlib, lua } = fengari;

/**
 * Shop's string bounds for a bare Lua state (a unit test of one library function): a cap
 * in bytes (null: none) and a clock that never runs out; errors name the caller's line.
 */
export function boundsFor(L: unknown, capBytes: number | null): PatternLimits {
  const memory = new LuaMemory(L, {
    capBytes: () => capBytes,
    look: () => undefined,
    where: (T) => {
      lauxlib.luaL_where(T, 1);
      const where = lua.lua_tojsstring(T, -1);
      lua.lua_pop(T, 1);
      return where;
    },
  });
  setPatchedSites(L, memory);
  return {
    maxStringBytes: () => capBytes,
    reserve: (T, n, what) => memory.reserve(T, n, what),
    worked: (T, n) => memory.worked(T, n),
  };
}
