import { seededRandom } from '../../engine/seeded-random.js';
import type { ModuleSource } from '../lua-modules.js';
import { LuaVm, type HostAnswer, type LuaThread, type Step, type VmHost } from '../lua-vm.js';
import { parseConfig, type HostRequest } from '../requests.js';

/** What the main thread did, as a test reads it. */
export type TestStep =
  { kind: 'request'; request: HostRequest } | { kind: 'done'; value: unknown } | { kind: 'error'; message: string };

/**
 * A workflow's main thread driven by hand: every host call suspends it, and the test
 * resumes it with a value. Config is checked by the real schema; random is seeded.
 * `modules`: what require() loads. `inline`: answers given at once, one a call, in order,
 * before calls suspend again.
 */
export function oneThread(
  source: string,
  chunkName = 'flow.lua',
  seed = 7,
  modules: ModuleSource | null = null,
  inline: HostAnswer[] = [],
) {
  const logs: string[] = [];
  const random = seededRandom(seed);
  const host: VmHost = {
    call: () => inline.shift() ?? null,
    tick: () => 'go',
    log: (_t, m) => logs.push(m),
    context: () => ({ run_id: 1, prompt: 'p', workspace: '/w', call_key: '1' }),
    config: (_t, table) => {
      const parsed = parseConfig(table);
      return typeof parsed === 'string' ? parsed : null;
    },
    random: () => random.next(),
    reseed: (_t, s) => random.reseed(s),
  };
  const vm = new LuaVm(source, chunkName, host, false, modules);
  let main: LuaThread;
  const read = (s: Step): TestStep => {
    if (s.kind === 'call') return { kind: 'request', request: s.request };
    if (s.kind === 'done') {
      const r = vm.result(main);
      return 'error' in r ? { kind: 'error', message: r.error } : { kind: 'done', value: r.value };
    }
    if (s.kind === 'error') return s;
    throw new Error('preempted');
  };
  return {
    logs,
    start(prompt: string): TestStep {
      main = vm.mainThread(prompt);
      return read(vm.resume(main, { kind: 'continue' }));
    },
    resume(value: unknown): TestStep {
      return read(vm.resume(main, { kind: 'values', values: [value] }));
    },
  };
}
