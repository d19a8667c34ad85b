import { LuaVm, type VmHost } from './lua-vm.js';
import { parseConfig } from './requests.js';

/**
 * Compiles a workflow and runs its top-level code (config{} included) without running
 * workflow(): bad Lua is bad input, refused before a run exists. Throws UsageError.
 */
export function checkWorkflow(source: string, chunkName: string): void {
  const started = performance.now();
  const host: VmHost = {
    call: () => null,
    tick: () => (performance.now() - started > 10_000 ? { error: 'the file takes over 10s to load (an endless loop?)' } : 'go'),
    log() {},
    context: () => ({}),
    config: (_t, table) => {
      const parsed = parseConfig(table);
      return typeof parsed === 'string' ? parsed : null;
    },
    random: () => Math.random(),
    reseed() {},
  };
  new LuaVm(source, chunkName, host);
}
