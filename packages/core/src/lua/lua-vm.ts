import fengari, { requirePatchedFengari, setPatchedSites } from './patched-fengari.js';
import { UsageError } from '../errors.js';
import { ConversionError, pushJs, toJs, type LuaState } from './convert.js';
import { parseArgs } from './calls/arity.js';
import type { AnyCall } from './calls/definition.js';
import { HOST_CALLS, type HostRequest } from './calls/registry.js';
import { hookSoon, wantsNoResults } from './lua-internals.js';
import { LuaMemory } from './lua-memory.js';
import type { ModuleSource } from './lua-modules.js';
import { installPrelude, SANDBOX_CHUNK } from './lua-prelude.js';
import { ModuleLoader } from './lua-require.js';
import { luaText } from './lua-text.js';
import { raise } from './lua-raise.js';
import { installSandbox, type SandboxHost } from './sandbox.js';
import { mayRaise, raisedMessage, recordedValue } from './calls/raised.js';
import { installStringCase } from './string-case.js';
import { installStringRep, installTableConcat } from './string-limits.js';
import { installPatterns } from './string-patterns.js';
import type { PatternLimits } from './string-matcher.js';

const { lua, lauxlib, to_luastring } = fengari;

/** Instructions between two looks at the clock (preemption, lua_timeout). */
const HOOK_EVERY = 1000;

/** One Lua thread of a run: the main one, or a parallel branch. */
export interface LuaThread {
  readonly L: LuaState;
  /** Anchors the thread in the registry while the scheduler holds it. */
  readonly ref: number;
}

/** How a suspended thread is resumed. */
export type ResumeWith =
  | { kind: 'values'; values: unknown[] }
  | { kind: 'error'; message: string }
  | { kind: 'branches'; threads: LuaThread[] }
  | { kind: 'continue' };

/** Where a thread stopped running. */
export type Step =
  | { kind: 'call'; request: HostRequest; def: AnyCall; branches: LuaThread[] }
  | { kind: 'preempted' }
  | { kind: 'done' }
  | { kind: 'error'; message: string };

/**
 * A host call answered at once: a value, or a recorded result as its JSON (replay's hot path:
 * parsed only if Lua keeps it).
 */
export type HostAnswer = { value: unknown } | { json: string | null };

/** What the VM asks of the scheduler, synchronously, from inside Lua. */
export interface VmHost extends SandboxHost<LuaThread> {
  /** A host call of `def`: its answer at once, or null to suspend the thread. */
  call(thread: LuaThread, req: HostRequest, def: AnyCall): HostAnswer | null;
  /** Every HOOK_EVERY instructions: go on, yield to the scheduler, or raise this error. */
  tick(thread: LuaThread): 'go' | 'yield' | { error: string };
  /** The run's Lua memory cap (lua_memory_mb) in bytes, for the string functions that can make large strings. */
  memoryCapBytes?(): number;
}

/** A fatal condition found inside a host call (non-determinism): it must not be catchable by pcall. */
export class VmFatal extends Error {}

/**
 * A workflow script in one sandboxed Lua state, with a thread per branch of work. Host
 * functions parse their arguments and ask the VmHost; a call it cannot answer at once
 * yields the thread, and the scheduler resumes it later with `resume()`.
 */
export class LuaVm {
  private readonly L: LuaState;
  private readonly byState = new Map<
    LuaState,
    LuaThread & {
      input: ResumeWith;
      request: HostRequest | null;
      def: AnyCall | null;
      branches: LuaThread[];
      preempted: boolean;
    }
  >();
  /** Set by a host call that found the run cannot go on; surfaces from resume() as a throw. */
  private fatal: Error | null = null;
  private loading = false;
  /** lua_timeout decided where a thread could not yield: every pcall and hook raises this again. */
  private doomed: string | null = null;

  /** The thread running the file's top-level code, until it has run. */
  private loader: LuaThread | null = null;
  /** The run's Lua memory (lua_memory_mb), told of every string before it is made. */
  private readonly memory: LuaMemory;
  /** require(): the project's modules (workflows/lib), loaded once each. */
  private readonly modules: ModuleLoader;

  /**
   * Compiles and loads the script; syntax errors and a missing workflow() are UsageErrors.
   * `stepwise`: the caller runs the top-level code with loadStep(), between its own looks
   * at stop requests and signals (a driver); otherwise it runs to its end here.
   * `modules`: where require() finds modules (none: require() says they cannot be loaded here).
   */
  constructor(
    source: string,
    readonly chunkName: string,
    private readonly host: VmHost,
    stepwise = false,
    modules: ModuleSource | null = null,
  ) {
    requirePatchedFengari();
    this.L = lauxlib.luaL_newstate();
    const capBytes = () => host.memoryCapBytes?.() ?? null;
    const memory = (this.memory = new LuaMemory(this.L, {
      capBytes,
      look: (T) => this.look(T),
      where: (T) => luaWhere(T),
    }));
    setPatchedSites(this.L, memory);
    installSandbox(this.L, host, (T) => this.threadOf(T));
    this.modules = new ModuleLoader(modules);
    this.modules.install(this.L);
    installPrelude(this.L, () => this.doomed);
    const limits: PatternLimits = {
      maxStringBytes: capBytes,
      reserve: (T, bytes, what) => memory.reserve(T, bytes, what),
      worked: (T, bytes) => memory.worked(T, bytes),
    };
    installPatterns(this.L, limits);
    installStringRep(this.L, limits);
    installTableConcat(this.L, limits);
    installStringCase(this.L, limits);
    for (const def of HOST_CALLS) {
      if (def.flow === 'branches') this.registerParallel(def);
      else this.registerCall(def);
    }
    if (lauxlib.luaL_loadbuffer(this.L, to_luastring(source), null, to_luastring(`@${chunkName}`)) !== lua.LUA_OK) {
      throw new UsageError(`${popError(this.L)} (fix the Lua syntax in ${chunkName})`);
    }
    // Top-level code runs in a thread of its own too: config{} there must see the thread,
    // and a loop there is bounded by lua_timeout (and preempted) like any other.
    this.loader = this.newThread(this.L, -1);
    lua.lua_pop(this.L, 1);
    this.loading = true;
    if (!stepwise) while (this.loadStep() === 'preempted');
  }

  /** Runs the top-level code until it is preempted or has run (then checks workflow() is defined). */
  loadStep(): 'preempted' | 'loaded' {
    const loader = this.loader;
    if (!loader) return 'loaded';
    let loaded: Step;
    try {
      loaded = this.resume(loader, { kind: 'continue' });
    } catch (e) {
      if (e instanceof VmFatal) throw new UsageError(`${e.message} (while loading ${this.chunkName})`);
      throw e;
    }
    if (loaded.kind === 'preempted') return 'preempted';
    this.loading = false;
    this.loader = null;
    this.release(loader);
    if (loaded.kind === 'error') throw new UsageError(`${loaded.message} (while loading ${this.chunkName})`);
    if (lua.lua_getglobal(this.L, to_luastring('workflow')) !== lua.LUA_TFUNCTION) {
      throw new UsageError(`${this.chunkName} does not define function workflow(prompt)`);
    }
    lua.lua_pop(this.L, 1);
    return 'loaded';
  }

  /** The main thread, ready to run workflow(prompt). */
  mainThread(prompt: string): LuaThread {
    lua.lua_getglobal(this.L, to_luastring('workflow'));
    const t = this.newThread(this.L, -1);
    lua.lua_pop(this.L, 1);
    lua.lua_pushstring(t.L, to_luastring(prompt));
    return t;
  }

  /** Runs `t` until it calls the host, is preempted, returns or raises. */
  resume(t: LuaThread, input: ResumeWith): Step {
    const rec = this.byState.get(t.L)!;
    rec.input = input;
    rec.request = null;
    rec.def = null;
    rec.branches = [];
    rec.preempted = false;
    const nargs = lua.lua_status(t.L) === lua.LUA_OK ? lua.lua_gettop(t.L) - 1 : 0;
    const status = lua.lua_resume(t.L, this.L, nargs);
    if (this.fatal) throw this.fatal;
    if (this.doomed !== null) throw new VmFatal(this.doomed);
    if (status === lua.LUA_YIELD) {
      if (rec.request) return { kind: 'call', request: rec.request, def: rec.def!, branches: rec.branches };
      return { kind: 'preempted' };
    }
    if (status === lua.LUA_OK) return { kind: 'done' };
    return { kind: 'error', message: popError(t.L) };
  }

  /** The first value a finished thread returned, as JS. */
  result(t: LuaThread): { value: unknown } | { error: string } {
    if (lua.lua_gettop(t.L) === 0) return { value: null };
    try {
      return { value: toJs(t.L, 1) };
    } catch (e) {
      if (e instanceof ConversionError) return { error: `${this.chunkName}: the workflow's result ${e.describe()}` };
      throw e;
    }
  }

  /** Lets go of a finished or cancelled thread. */
  release(t: LuaThread): void {
    this.byState.delete(t.L);
    this.modules.forget(t.L);
    lauxlib.luaL_unref(this.L, lua.LUA_REGISTRYINDEX, t.ref);
  }

  private threadOf(T: LuaState): LuaThread {
    return this.byState.get(T)!;
  }

  /** A thread running the function at `fnIdx` of `from`'s stack, anchored in the registry. */
  private newThread(from: LuaState, fnIdx: number): LuaThread {
    const fn = lua.lua_absindex(from, fnIdx);
    const T = lua.lua_newthread(from);
    lua.lua_sethook(T, (H: LuaState, ar: unknown) => this.onHook(H, ar), lua.LUA_MASKCOUNT, HOOK_EVERY);
    const ref = lauxlib.luaL_ref(from, lua.LUA_REGISTRYINDEX);
    lua.lua_pushvalue(from, fn);
    lua.lua_xmove(from, T, 1);
    const t = {
      L: T,
      ref,
      input: { kind: 'continue' } as ResumeWith,
      request: null,
      def: null,
      branches: [],
      preempted: false,
    };
    this.byState.set(T, t);
    return t;
  }

  private onHook(T: LuaState, ar: unknown) {
    const t = this.byState.get(T);
    if (!t) return;
    if (this.doomed !== null) {
      // Still running after its end was decided (an error handler, a metamethod): end it again.
      raiseFromHook(T, this.doomed);
    }
    const overMemory = this.memory.checkHeap();
    const verdict = overMemory === null ? this.host.tick(t) : { error: overMemory };
    if (verdict === 'go') return;
    if (verdict === 'yield') {
      // Inside a metamethod called from JS (__tostring, __index from table.insert …) a thread
      // cannot yield: it goes on until it can, or until lua_timeout ends it below.
      if (!lua.lua_isyieldable(T)) return;
      t.preempted = true;
      lua.lua_yield(T, 0);
      return;
    }
    lua.lua_getinfo(T, to_luastring('Sl'), ar);
    // The file running now: the workflow's, or a module's (require); in the sandbox's own Lua (a sort), the code that called it.
    const { short_src: file, currentline: line } = ar as { short_src: Uint8Array; currentline: number };
    const src = fengari.to_jsstring(file);
    const message = `${src === SANDBOX_CHUNK ? luaWhere(T) : `${src}:${line}: `}${verdict.error}`;
    // Past any pcall: a script must not catch its own timeout and loop on.
    if (lua.lua_isyieldable(T)) {
      this.fatal = new VmFatal(message);
      t.preempted = true;
      lua.lua_yield(T, 0);
      return;
    }
    // Where it cannot yield, an error unwinds it; pcall and xpcall raise it again (lua-prelude).
    this.doomed = message;
    raiseFromHook(T, message);
  }

  /**
   * A look at the clock from inside a string operation (a call is one instruction to the
   * count hook, however long it works): lua_timeout ends it at once, past any pcall; a
   * slice that is over has the hook yield at the next instruction.
   */
  private look(T: LuaState): void {
    const t = this.byState.get(T);
    if (!t) return;
    if (this.doomed === null) {
      const verdict = this.host.tick(t);
      if (verdict === 'go') return;
      if (verdict === 'yield') return hookSoon(T);
      this.doomed = `${luaWhere(T)}${verdict.error}`;
    }
    lua.lua_pushstring(T, to_luastring(this.doomed));
    lua.lua_error(T);
  }

  private registerCall(def: AnyCall) {
    const { name } = def;
    const continuation = (T: LuaState) => this.continueCall(T);
    lua.lua_pushcfunction(this.L, (T: LuaState) => {
      const args: unknown[] = [];
      try {
        for (let i = 1; i <= lua.lua_gettop(T); i++) args.push(toJs(T, i));
      } catch (e) {
        if (e instanceof ConversionError) return raise(T, `${name}(): argument ${args.length + 1} ${e.describe()}`);
        throw e;
      }
      const parsed = parseArgs(def, args) as HostRequest | string;
      if (typeof parsed === 'string') return raise(T, parsed);
      if (this.loading) return raise(T, `${name}() can only be called inside workflow(), not while the file loads`);
      if (!lua.lua_isyieldable(T))
        return raise(
          T,
          `${name}() cannot be called here (inside a metamethod or a function called from JS such as __tostring)`,
        );
      const t = this.byState.get(T)!;
      const bug = def.fatal?.(parsed);
      if (bug) {
        // A bug in the script, not a condition to handle: the run fails at this line, past any pcall.
        const message = `${luaWhere(T)}${bug}`;
        this.fatal = new VmFatal(message, { cause: new UsageError(message) });
        return lua.lua_yield(T, 0);
      }
      const inline = this.guard(() => this.host.call(t, parsed, def));
      if (inline) {
        if ('json' in inline) return this.answerRecorded(T, name, inline.json);
        const error = raisedMessage(inline.value);
        if (error !== null) return raise(T, error);
        // A statement call keeps no result: making a table Lua drops at once was a replay's largest cost.
        return wantsNoResults(T) ? 0 : pushResult(T, name, inline.value);
      }
      t.request = parsed;
      t.def = def;
      return lua.lua_yieldk(T, 0, 0, continuation);
    });
    lua.lua_setglobal(this.L, to_luastring(name));
  }

  private registerParallel(def: AnyCall) {
    const { name, usage } = def;
    const continuation = (T: LuaState) => this.continueCall(T);
    lua.lua_pushcfunction(this.L, (T: LuaState) => {
      const n = lua.lua_gettop(T);
      if (n === 0) return raise(T, `${usage}: give at least one function`);
      if (this.loading) return raise(T, `${name}() can only be called inside workflow(), not while the file loads`);
      for (let i = 1; i <= n; i++) {
        if (lua.lua_type(T, i) !== lua.LUA_TFUNCTION)
          return raise(
            T,
            `${usage}: argument ${i} is a ${fengari.to_jsstring(lauxlib.luaL_typename(T, i))}, not a function`,
          );
      }
      if (!lua.lua_isyieldable(T))
        return raise(
          T,
          `${name}() cannot be called here (inside a metamethod or a function called from JS such as __tostring)`,
        );
      const t = this.byState.get(T)!;
      const request = def.parse([n]) as HostRequest;
      this.guard(() => this.host.call(t, request, def));
      t.request = request;
      t.def = def;
      for (let i = 1; i <= n; i++) t.branches.push(this.newThread(T, i));
      return lua.lua_yieldk(T, 0, 0, continuation);
    });
    lua.lua_setglobal(this.L, to_luastring(name));
  }

  /**
   * Replay's answer from a recorded result's JSON, parsed only if Lua keeps the value (or to see
   * whether it raises, when it names the field). A text that does not read (a store changed by
   * hand) stops the VM with a DamagedLogError, past any pcall: a JS exception thrown through
   * fengari would reach Lua as whatever value is on its stack.
   */
  private answerRecorded(T: LuaState, name: string, json: string | null): number {
    const keep = !wantsNoResults(T);
    let value: unknown = null;
    if (keep || mayRaise(json)) {
      try {
        value = recordedValue(json);
      } catch (e) {
        this.fatal = e instanceof Error ? e : new Error(String(e));
        return lua.lua_yield(T, 0);
      }
    }
    const error = raisedMessage(value);
    if (error !== null) return raise(T, error);
    return keep ? pushResult(T, name, value) : 0;
  }

  /** A host call's VmFatal stops the VM: yield out of Lua at once, past any pcall. */
  private guard<T>(fn: () => T): T | null {
    try {
      return fn();
    } catch (e) {
      if (!(e instanceof VmFatal)) throw e;
      this.fatal = e;
      return null;
    }
  }

  /** Runs when a suspended host call resumes: hands Lua its values, or raises at the caller's line. */
  private continueCall(T: LuaState): number {
    const t = this.byState.get(T)!;
    const input = t.input;
    switch (input.kind) {
      case 'values': {
        // A call recorded as raising (a child run stopped): the error at the caller's line, as pcall sees it.
        const error = input.values.length === 1 ? raisedMessage(input.values[0]) : null;
        if (error !== null) return raise(T, error);
        if (wantsNoResults(T)) return 0;
        lua.lua_checkstack(T, input.values.length);
        for (const v of input.values) pushResult(T, 'call', v);
        return input.values.length;
      }
      case 'error':
        return raise(T, input.message);
      case 'branches':
        lua.lua_checkstack(T, input.threads.length);
        for (const b of input.threads) {
          if (lua.lua_gettop(b.L) >= 1) {
            lua.lua_settop(b.L, 1);
            lua.lua_xmove(b.L, T, 1);
          } else lua.lua_pushnil(T);
        }
        return input.threads.length;
      case 'continue':
        return 0;
    }
  }
}

/**
 * Raises `message` from the count hook. fengari turns hooks off while one runs and turns them
 * back on only when a pcall catches the error, but xpcall's message handler runs before that:
 * a loop in the handler then ran with no hook at all, for ever, deaf to SIGTERM and shop stop.
 * With hooks on again the handler is ended like any other code (and, raising in turn, the
 * handler's own recursion ends at Lua's C-stack limit).
 */
function raiseFromHook(T: LuaState, message: string): never {
  (T as unknown as { allowhook: number }).allowhook = 1;
  lua.lua_pushstring(T, to_luastring(message));
  return lua.lua_error(T) as never;
}

function pushResult(T: LuaState, name: string, value: unknown): number {
  try {
    pushJs(T, value);
    return 1;
  } catch (e) {
    if (e instanceof ConversionError) return raise(T, `${name}(): its result ${e.describe()}`);
    throw e;
  }
}

/**
 * "file.lua:LINE: " of the nearest workflow or module code running or calling, past JS
 * functions (no line) and the sandbox's own Lua (pcall, table.sort, require), or "".
 */
function luaWhere(T: LuaState): string {
  for (let level = 0; level < 20; level++) {
    lauxlib.luaL_where(T, level);
    const where = lua.lua_tojsstring(T, -1);
    lua.lua_pop(T, 1);
    if (where && !where.startsWith(`${SANDBOX_CHUNK}:`)) return where;
  }
  return '';
}

/** Bytes of an error message read (a run's reason keeps 1000 characters): error(huge) must not make a huge JS string. */
const ERROR_BYTES = 4096;

function popError(L: LuaState): string {
  let msg: string;
  if (lua.lua_type(L, -1) === lua.LUA_TSTRING) msg = luaText(lua.lua_tolstring(L, -1), ERROR_BYTES);
  else {
    try {
      msg = JSON.stringify(toJs(L, -1));
    } catch {
      msg = `a ${fengari.to_jsstring(lauxlib.luaL_typename(L, -1))} was raised`;
    }
  }
  lua.lua_pop(L, 1);
  return msg;
}
