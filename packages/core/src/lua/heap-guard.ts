import { createRequire } from 'node:module';

const required = createRequire(import.meta.url);
let v8: typeof import('node:v8') | undefined;

/** V8's heap figures; Node's v8 module is required at the first look (loading it took ~3 ms of a short command's start-up). */
export const heapStatistics = () => (v8 ??= required('node:v8') as typeof import('node:v8')).getHeapStatistics();

/**
 * Share of V8's heap limit past which Lua may not go on: Node aborts (exit 134) at the
 * limit, and the limit counts young space that never fills, so well before it.
 */
const NEAR_LIMIT = 0.7;
/** Looks every so many hook ticks (a look costs ~5 µs; a tick is 1000 Lua instructions). */
const EVERY = 16;

/**
 * Lua tables and closures live on the V8 heap, which fengari cannot account per run: a loop
 * filling a table ran the process into V8's limit and Node aborted with a native stack.
 * This fails the Lua running when the whole process nears the limit, while it still can.
 */
export class HeapGuard {
  private ticks = 0;

  /** The error to raise, or null. */
  check(): string | null {
    if (++this.ticks % EVERY !== 0) return null;
    const h = heapStatistics();
    if (h.used_heap_size < h.heap_size_limit * NEAR_LIMIT) return null;
    const mb = (n: number) => Math.round(n / 1024 / 1024);
    return `not enough memory: the process's heap holds ${mb(h.used_heap_size)} MB of its ${mb(h.heap_size_limit)} MB limit (the workflow keeps too much in Lua tables)`;
  }
}
