import { startedBy } from '../store/queue-store.js';
import { NonDeterminismError } from '../errors.js';
import { VmFatal, type HostAnswer, type LuaThread, type VmHost } from '../lua/lua-vm.js';
import { HeapGuard } from '../lua/heap-guard.js';
import { DEFAULT_LUA_MEMORY_MB, DEFAULT_LUA_TIMEOUT_S, luaTimeoutMessage } from '../lua/limits.js';
import type { AnyCall } from '../lua/calls/definition.js';
import { parseConfig, type CallRequest, type HostRequest, type WorkflowConfig } from '../lua/requests.js';
import type { Run } from '../types.js';
import type { ReplayLog } from './replay-log.js';
import { keyOf } from './strands.js';
import type { Threads } from './threads.js';

/** Pure Lua a thread may run before the scheduler looks at Ctrl-C and stop requests. */
const SLICE_MS = 50;

/** Which call of which thread did not match the log (found inside Lua, explained outside it). */
export class CallMismatch extends Error {
  constructor(
    readonly key: string,
    readonly req: CallRequest,
    readonly def: AnyCall,
  ) {
    super(`call ${key} does not match the log`);
  }
}

/**
 * What Lua asks of the engine synchronously, per thread: a key for each call (and the
 * recorded result when its turn has come), log lines, context, config, random numbers,
 * and a look at the clock every so many instructions.
 */
export class ThreadHost implements VmHost {
  settings: WorkflowConfig = {};
  /** log() lines not written yet; `nth` counts from 0 per thread in this drive, replayed ones included (the scheduler skips those an earlier drive recorded). */
  readonly logs: { message: string; thread: string; nth: number }[] = [];
  private readonly heap = new HeapGuard();

  constructor(
    private readonly threads: Threads,
    private readonly replay: ReplayLog,
    private readonly run: Run,
    private readonly onConfig: (settings: WorkflowConfig) => void,
  ) {}

  call(thread: LuaThread, req: HostRequest, def: AnyCall): HostAnswer | null {
    const s = this.threads.byLua.get(thread)!;
    s.luaCarried = 0;
    s.luaSince = performance.now();
    if (def.flow === 'end') return null;
    const key = keyOf(s.path, s.calls + 1);
    if (def.untaken) {
      const answer = def.untaken(this.replay.get(key), req);
      if (answer) return answer;
    }
    s.calls++;
    s.key = key;
    let rec;
    try {
      rec = this.replay.reach(key, req as CallRequest, def);
    } catch (e) {
      if (e instanceof NonDeterminismError)
        throw new VmFatal(e.message, { cause: new CallMismatch(key, req as CallRequest, def) });
      throw e;
    }
    // The hot path of replay: a recorded result whose turn it is, answered without a yield —
    // but only when no other thread is ready to run: live, those ran before any delivery.
    if (rec?.status === 'completed' && rec.delivered === this.threads.nextDelivery && this.threads.ready.length === 0) {
      this.threads.nextDelivery++;
      return { json: rec.resultJson };
    }
    return null;
  }

  log(thread: LuaThread, message: string) {
    const s = this.threads.byLua.get(thread);
    if (!s) return;
    this.logs.push({ message, thread: s.path, nth: s.logs++ });
  }

  context(thread: LuaThread) {
    const s = this.threads.byLua.get(thread);
    const { run } = this;
    // parent: the run whose call_workflow/start_workflow started this one (nil for a person's run).
    return {
      run_id: run.id,
      prompt: run.prompt,
      workspace: run.workspace,
      call_key: s ? keyOf(s.path, s.calls + 1) : null,
      thread: s?.path || 'main',
      parent: run.parentId,
      // Who or what started it (a run recorded before schema 14 has none: its starter on the CLI, or its parent).
      trigger: run.trigger ?? startedBy({ actor: null }, run.parentId === null ? null : { runId: run.parentId }),
    };
  }

  /** The config{} in force from now on: once the file has loaded, the run's own (RulesInForce). */
  fix(settings: WorkflowConfig) {
    this.settings = settings;
    this.onConfig(settings);
  }

  config(_thread: LuaThread, table: unknown): string | null {
    const parsed = parseConfig(table);
    if (typeof parsed === 'string') return parsed;
    this.settings = { ...this.settings, ...parsed };
    this.onConfig(this.settings);
    return null;
  }

  random(thread: LuaThread): number {
    return this.threads.byLua.get(thread)?.random.next() ?? 0;
  }

  reseed(thread: LuaThread, seed: number) {
    this.threads.byLua.get(thread)?.random.reseed(seed);
  }

  memoryCapBytes(): number {
    return (this.settings.lua_memory_mb ?? DEFAULT_LUA_MEMORY_MB) * 1024 * 1024;
  }

  tick(thread: LuaThread): 'go' | 'yield' | { error: string } {
    const s = this.threads.byLua.get(thread);
    const now = performance.now();
    const limit = this.settings.lua_timeout ?? DEFAULT_LUA_TIMEOUT_S;
    // No strand: the file's top-level code, loading.
    const spent = (s ? s.luaCarried + now - s.luaSince : now - this.threads.loadStart) / 1000;
    if (spent > limit) {
      return { error: luaTimeoutMessage(limit) };
    }
    const heap = this.heap.check();
    if (heap) return { error: heap };
    return now - this.threads.sliceStart > SLICE_MS ? 'yield' : 'go';
  }
}
