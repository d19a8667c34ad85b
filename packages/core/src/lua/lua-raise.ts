import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';

const { lua, lauxlib, to_luastring } = fengari;

/** Raises a Lua error at the caller's file:line, like luaL_error without format codes. */
export function raise(L: LuaState, message: string): never {
  lauxlib.luaL_where(L, 1);
  lua.lua_pushstring(L, to_luastring(message));
  lua.lua_concat(L, 2);
  return lua.lua_error(L) as never;
}
