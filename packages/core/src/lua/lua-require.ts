import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { MODULE_NAME_MAX, moduleNameProblem, quotedName, type ModuleSource } from './lua-modules.js';
import { SANDBOX_CHUNK } from './lua-prelude.js';
import { loadSandboxChunk } from './sandbox-chunk.js';
import { luaText } from './lua-text.js';
import { raise } from './lua-raise.js';

const { lua, lauxlib, to_luastring } = fengari;

/**
 * The body of require() in Lua, so a module's top-level code runs in the calling thread as
 * plain Lua calls: a host call in it yields that thread and takes that thread's next call key,
 * exactly as if it were written in the workflow file (replay is the same wherever it loads).
 * Loaded once per run (per VM): the value is kept, true when the module returns nothing. An
 * error while it loads leaves nothing kept, so a pcall'd require may try again. Returns nil and
 * a message for require() itself to raise (a JS function: a tail call keeps its caller's line).
 */
const LOAD = `
local begin, finish, raw_pcall = ...
local error = error
local loaded = {}
local function settle(name, ok, ...)
  finish(name)
  if not ok then error((...), 0) end
  local value = ...
  if value == nil then value = true end
  loaded[name] = value
  return value
end
return function(name)
  local hit = loaded[name]
  if hit ~= nil then return hit end
  local chunk, file = begin(name)
  if not chunk then return nil, file end
  return settle(name, raw_pcall(chunk, name, file))
end
`;

/** Bytes of an error message read from the compiler (the chunk name is capped by Lua itself). */
const COMPILE_ERROR_BYTES = 4096;

/**
 * The JS side of require(): names checked, files read through `source`, cycles and a module
 * still loading in another thread refused — each a message raised at the require's line.
 */
export class ModuleLoader {
  /** Modules loading now, by the thread loading each. */
  private readonly loading = new Map<string, LuaState>();
  /** Each thread's chain of modules loading (a requires b requires …). */
  private readonly chains = new Map<LuaState, string[]>();

  constructor(private readonly source: ModuleSource | null) {}

  /** Installs require(); before the prelude, so it keeps Lua's own pcall (the prelude's re-raises a doomed VM's end). */
  install(L: LuaState): void {
    if (loadSandboxChunk(L, LOAD, `=${SANDBOX_CHUNK}`) !== lua.LUA_OK) {
      throw new Error(`the sandbox's require does not compile: ${lua.lua_tojsstring(L, -1)}`);
    }
    lua.lua_pushcfunction(L, (T: LuaState) => this.begin(T));
    lua.lua_pushcfunction(L, (T: LuaState) => {
      this.finish(T, lua.lua_tojsstring(T, 1));
      return 0;
    });
    lua.lua_getglobal(L, to_luastring('pcall'));
    lua.lua_call(L, 3, 1);
    const load = lauxlib.luaL_ref(L, lua.LUA_REGISTRYINDEX);
    // The module's value, or the message raised at the line that called require().
    const loaded = (T: LuaState): number => {
      if (lua.lua_isnil(T, -2)) return raise(T, lua.lua_tojsstring(T, -1));
      lua.lua_pop(T, 1);
      return 1;
    };
    lua.lua_pushcfunction(L, (T: LuaState) => {
      lua.lua_settop(T, 1);
      lua.lua_rawgeti(T, lua.LUA_REGISTRYINDEX, load);
      lua.lua_insert(T, 1);
      lua.lua_callk(T, 1, 2, 0, loaded);
      return loaded(T);
    });
    lua.lua_setglobal(L, to_luastring('require'));
  }

  /** A thread let go (ended, cancelled with its parallel): what it was loading is loading no more. */
  forget(T: LuaState): void {
    for (const name of this.chains.get(T) ?? []) this.loading.delete(name);
    this.chains.delete(T);
  }

  /** Returns the module's compiled chunk and its file, or nil and the message to raise. */
  private begin(T: LuaState): number {
    const fail = (message: string) => {
      lua.lua_pushnil(T);
      lua.lua_pushstring(T, to_luastring(message));
      return 2;
    };
    if (lua.lua_type(T, 1) !== lua.LUA_TSTRING) {
      return fail(
        `require(name): the name must be a string, not a ${fengari.to_jsstring(lauxlib.luaL_typename(T, 1))}`,
      );
    }
    const raw: Uint8Array = lua.lua_tolstring(T, 1);
    const name = luaText(raw, MODULE_NAME_MAX * 4 + 4);
    const call = `require(${quotedName(name)})`;
    const problem =
      raw.length > MODULE_NAME_MAX
        ? `a module name is at most ${MODULE_NAME_MAX} characters (this one has ${raw.length})`
        : moduleNameProblem(name);
    if (problem) return fail(`${call}: ${problem}`);
    const chain = this.chains.get(T) ?? [];
    if (chain.includes(name)) {
      const cycle = [...chain.slice(chain.indexOf(name)), name].join(' → ');
      return fail(
        `${call}: a require cycle: ${cycle}; a module cannot require one that is still loading it (move what both need into a third module)`,
      );
    }
    if (this.loading.has(name)) {
      return fail(
        `${call}: ${name} is still loading in another thread (its top-level code waits on a host call); require it before the parallel() whose branches need it`,
      );
    }
    if (!this.source) return fail(`${call}: modules cannot be loaded here`);
    const read = this.source.read(name);
    if ('problem' in read) return fail(`${call}: ${read.problem}`);
    if (lauxlib.luaL_loadbuffer(T, to_luastring(read.source), null, to_luastring(`@${read.file}`)) !== lua.LUA_OK) {
      const message = luaText(lua.lua_tolstring(T, -1), COMPILE_ERROR_BYTES);
      lua.lua_pop(T, 1);
      return fail(`${call}: ${message} (fix the Lua syntax in ${read.file})`);
    }
    chain.push(name);
    this.chains.set(T, chain);
    this.loading.set(name, T);
    lua.lua_pushstring(T, to_luastring(read.file));
    return 2;
  }

  private finish(T: LuaState, name: string): void {
    const chain = this.chains.get(T);
    const at = chain?.lastIndexOf(name) ?? -1;
    if (at >= 0) chain!.splice(at, 1);
    if (chain && !chain.length) this.chains.delete(T);
    this.loading.delete(name);
  }
}
