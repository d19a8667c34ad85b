import fengari from './patched-fengari.js';
import { ConversionError, pushJs, toJs, type LuaState } from './convert.js';
import { logLine } from './lua-text.js';
import { raise } from './lua-raise.js';

const { lua, lauxlib, lualib, to_luastring } = fengari;

/** Host functions that answer at once (no yield, nothing recorded), told which thread calls. */
export interface SandboxHost<T> {
  log(thread: T, message: string): void;
  context(thread: T): Record<string, unknown>;
  /** Returns an error message to raise in Lua, or null when the config was accepted. */
  config(thread: T, table: unknown): string | null;
  /** Replay-stable random number in [0, 1), from the thread's own generator. */
  random(thread: T): number;
  reseed(thread: T, seed: number): void;
}

const LIBS: [string, unknown][] = [
  ['_G', lualib.luaopen_base],
  ['table', lualib.luaopen_table],
  ['string', lualib.luaopen_string],
  ['math', lualib.luaopen_math],
  ['utf8', lualib.luaopen_utf8],
];
const REMOVED_GLOBALS = ['dofile', 'loadfile', 'load', 'loadstring', 'require', 'collectgarbage'];

/** Opens only the safe libraries and installs the synchronous host functions. */
export function installSandbox<T>(L: LuaState, host: SandboxHost<T>, threadOf: (L: LuaState) => T): void {
  for (const [name, open] of LIBS) {
    lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
    lua.lua_pop(L, 1);
  }
  for (const name of REMOVED_GLOBALS) {
    lua.lua_pushnil(L);
    lua.lua_setglobal(L, to_luastring(name));
  }
  lua.lua_getglobal(L, to_luastring('string'));
  lua.lua_pushnil(L);
  lua.lua_setfield(L, -2, to_luastring('dump'));
  lua.lua_pop(L, 1);

  // Each value as Lua bytes, cut before any becomes a JS string (logLine).
  const log = (T: LuaState) => {
    const parts: Uint8Array[] = [];
    const n = lua.lua_gettop(T);
    for (let i = 1; i <= n; i++) {
      parts.push(lauxlib.luaL_tolstring(T, i));
      lua.lua_pop(T, 1);
    }
    host.log(threadOf(T), logLine(parts));
    return 0;
  };
  setGlobal(L, 'log', log);
  setGlobal(L, 'print', log);
  setGlobal(L, 'context', (T: LuaState) => {
    pushJs(T, host.context(threadOf(T)));
    return 1;
  });
  setGlobal(L, 'config', (T: LuaState) => {
    let table: unknown;
    try {
      table = toJs(T, 1);
    } catch (e) {
      if (e instanceof ConversionError) return raise(T, `config: ${e.describe()}`);
      throw e;
    }
    const problem = host.config(threadOf(T), table);
    return problem ? raise(T, problem) : 0;
  });
  installRandom(L, host, threadOf);
}

function setGlobal(L: LuaState, name: string, fn: (T: LuaState) => number) {
  lua.lua_pushcfunction(L, fn);
  lua.lua_setglobal(L, to_luastring(name));
}

/** math.random/randomseed backed by the run's seeded generator, so replay draws the same numbers. */
function installRandom<T>(L: LuaState, host: SandboxHost<T>, threadOf: (L: LuaState) => T) {
  lua.lua_getglobal(L, to_luastring('math'));
  lua.lua_pushcfunction(L, (T: LuaState) => {
    const r = host.random(threadOf(T));
    const n = lua.lua_gettop(T);
    if (n === 0) {
      lua.lua_pushnumber(T, r);
      return 1;
    }
    const lo = n >= 2 ? lauxlib.luaL_checkinteger(T, 1) : 1;
    const hi = n >= 2 ? lauxlib.luaL_checkinteger(T, 2) : lauxlib.luaL_checkinteger(T, 1);
    if (lo > hi) return raise(T, 'bad argument to random (interval is empty)');
    lua.lua_pushinteger(T, lo + Math.floor(r * (hi - lo + 1)));
    return 1;
  });
  lua.lua_setfield(L, -2, to_luastring('random'));
  lua.lua_pushcfunction(L, (T: LuaState) => {
    host.reseed(threadOf(T), Number(lauxlib.luaL_checknumber(T, 1)));
    return 0;
  });
  lua.lua_setfield(L, -2, to_luastring('randomseed'));
  lua.lua_pop(L, 1);
}
