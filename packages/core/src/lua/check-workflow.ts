import { DEFAULT_LUA_MEMORY_MB, DEFAULT_LUA_TIMEOUT_S, luaTimeoutMessage } from './limits.js';
import type { ModuleSource } from './lua-modules.js';
import { LuaVm, type VmHost } from './lua-vm.js';
import { parseConfig, type WorkflowConfig } from './requests.js';

/**
 * Compiles a workflow and runs its top-level code (config{} included) without running
 * workflow(): bad Lua is bad input, refused before a run exists. Throws UsageError.
 * Its own config{} bounds it: lua_timeout and lua_memory_mb apply while the file loads.
 * `modules`: what a require() at the top of the file loads. Returns the config{} it set.
 */
export function checkWorkflow(source: string, chunkName: string, modules: ModuleSource | null = null): WorkflowConfig {
  const started = performance.now();
  let settings: WorkflowConfig = {};
  const host: VmHost = {
    call: () => null,
    tick: () => {
      const limit = settings.lua_timeout ?? DEFAULT_LUA_TIMEOUT_S;
      return performance.now() - started > limit * 1000 ? { error: luaTimeoutMessage(limit) } : 'go';
    },
    memoryCapBytes: () => (settings.lua_memory_mb ?? DEFAULT_LUA_MEMORY_MB) * 1024 * 1024,
    log() {},
    context: () => ({}),
    config: (_t, table) => {
      const parsed = parseConfig(table);
      if (typeof parsed === 'string') return parsed;
      settings = { ...settings, ...parsed };
      return null;
    },
    random: () => Math.random(),
    reseed() {},
  };
  new LuaVm(source, chunkName, host, false, modules);
  return settings;
}
