import fengari from 'fengari';
import { UsageError } from '../errors.js';
import { pushJs, toJs, type LuaState } from './convert.js';
import { installSandbox, raise, type SyncHost } from './sandbox.js';
import type { HostRequest } from './requests.js';
import { parseHostCall } from './host-calls.js';

const { lua, lauxlib, to_luastring } = fengari;

/** One step of the workflow thread: it asked for something, returned, or raised. */
export type Step =
  | { kind: 'request'; request: HostRequest }
  | { kind: 'done'; value: unknown }
  | { kind: 'error'; message: string };

const YIELDING = ['run', 'pause', 'stuck', 'sh', 'now'] as const;

/**
 * A workflow script in a fresh sandboxed Lua state, driven as a coroutine. Effectful host
 * functions yield a typed request; the caller answers it with `resume(value)`.
 */
export class LuaWorkflow {
  private readonly L: LuaState;
  private readonly thread: LuaState;
  private pending: HostRequest | null = null;

  /** Compiles and loads the script; syntax errors and a missing workflow() are UsageErrors. */
  constructor(source: string, chunkName: string, host: SyncHost) {
    this.L = lauxlib.luaL_newstate();
    installSandbox(this.L, host);
    for (const name of YIELDING) this.register(name);
    if (lauxlib.luaL_loadbuffer(this.L, to_luastring(source), null, to_luastring(`@${chunkName}`)) !== lua.LUA_OK) {
      throw new UsageError(`${this.popError(this.L)} (fix the Lua syntax in ${chunkName})`);
    }
    if (lua.lua_pcall(this.L, 0, 0, 0) !== lua.LUA_OK) {
      throw new UsageError(`${this.popError(this.L)} (while loading ${chunkName})`);
    }
    if (lua.lua_getglobal(this.L, to_luastring('workflow')) !== lua.LUA_TFUNCTION) {
      throw new UsageError(`${chunkName} does not define function workflow(prompt)`);
    }
    lua.lua_pop(this.L, 1);
    this.thread = lua.lua_newthread(this.L);
    lua.lua_setfield(this.L, lua.LUA_REGISTRYINDEX, to_luastring('shop.thread'));
  }

  start(prompt: string): Step {
    lua.lua_getglobal(this.thread, to_luastring('workflow'));
    lua.lua_pushstring(this.thread, to_luastring(prompt));
    return this.step(1);
  }

  resume(value: unknown): Step {
    lua.lua_settop(this.thread, 0);
    pushJs(this.thread, value);
    return this.step(1);
  }

  private step(nargs: number): Step {
    this.pending = null;
    const status = lua.lua_resume(this.thread, this.L, nargs);
    if (status === lua.LUA_YIELD) {
      const request = this.pending as HostRequest | null;
      if (!request) return { kind: 'error', message: 'coroutine.yield is not available in workflows' };
      return { kind: 'request', request };
    }
    if (status === lua.LUA_OK) {
      const value = lua.lua_gettop(this.thread) > 0 ? toJs(this.thread, 1) : null;
      return { kind: 'done', value };
    }
    return { kind: 'error', message: this.popError(this.thread) };
  }

  private register(name: (typeof YIELDING)[number]) {
    lua.lua_pushcfunction(this.L, (T: LuaState) => {
      const args: unknown[] = [];
      for (let i = 1; i <= lua.lua_gettop(T); i++) args.push(toJs(T, i));
      const parsed = parseHostCall(name, args);
      if (typeof parsed === 'string') return raise(T, parsed);
      this.pending = parsed;
      return lua.lua_yield(T, 0);
    });
    lua.lua_setglobal(this.L, to_luastring(name));
  }

  private popError(L: LuaState): string {
    const msg = lua.lua_type(L, -1) === lua.LUA_TSTRING ? lua.lua_tojsstring(L, -1) : JSON.stringify(toJs(L, -1));
    lua.lua_pop(L, 1);
    return msg;
  }
}
