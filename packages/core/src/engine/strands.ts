import { canonicalHash } from '../lua/canonical-hash.js';
import type { LuaThread, ResumeWith } from '../lua/lua-vm.js';
import { seededRandom } from './seeded-random.js';

/**
 * A Lua thread as the scheduler sees it: its path ("" for main, "4/2" for the second branch
 * of the parallel at call 4), its own call numbering, random generator and log count.
 */
export interface Strand {
  readonly lua: LuaThread;
  readonly path: string;
  /** Calls this thread has made; its next call's key is keyOf(path, calls + 1). */
  calls: number;
  readonly random: ReturnType<typeof seededRandom>;
  /** log() lines this thread has made in this drive, replayed ones included (the scheduler skips those recorded). */
  logs: number;
  state: 'ready' | 'blocked' | 'parallel' | 'done' | 'failed' | 'cancelled';
  input: ResumeWith;
  /** The parallel this thread is a branch of (null for main). */
  readonly group: ParallelGroup | null;
  /** The parallel this thread waits on, while it does. */
  children: ParallelGroup | null;
  /** The key of the call it made last (the one it waits on while blocked). */
  key: string | null;
  /** Pure Lua since its last host call (lua_timeout): carried from earlier slices, and since when. */
  luaCarried: number;
  luaSince: number;
  /** Finished branch threads to let go of once this thread has taken their results. */
  releaseAfter: LuaThread[];
}

export interface ParallelGroup {
  readonly key: string;
  readonly parent: Strand;
  readonly branches: Strand[];
  finished: number;
}

export const keyOf = (path: string, n: number): string => (path ? `${path}/${n}` : String(n));

/** Whether `key` belongs to thread `path` or to one nested inside it. */
export const within = (key: string, path: string): boolean => path === '' || key === path || key.startsWith(`${path}/`);

export function newStrand(lua: LuaThread, path: string, runSeed: number, group: ParallelGroup | null): Strand {
  // The main thread keeps the run's seed (as runs recorded before branches did); a branch
  // derives its own from the seed and its path, so no interleaving changes what it draws.
  const seed = path === '' ? runSeed : parseInt(canonicalHash(`${runSeed}:${path}`).slice(-8), 16);
  return {
    lua,
    path,
    calls: 0,
    random: seededRandom(seed),
    logs: 0,
    state: 'ready',
    input: { kind: 'continue' },
    group,
    children: null,
    key: null,
    luaCarried: 0,
    luaSince: 0,
    releaseAfter: [],
  };
}
