import fengari, { type PatchedSites } from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { census } from './lua-census.js';
import { heapStatistics } from './heap-guard.js';
import { canRaise } from './lua-internals.js';
import { overCap, size } from './string-limits.js';

const { lua, to_luastring } = fengari;

/** Bytes of string made or worked through between two looks at the clock (a few ms of work). */
const LOOK_BYTES = 1024 * 1024;
/** Hook ticks between two looks at the JS heap (a look costs ~5 µs; a tick is 1000 instructions). */
const HEAP_EVERY = 16;

/** What the run's memory needs of the VM. */
interface MemoryHost {
  /** The run's Lua memory cap (config lua_memory_mb) in bytes; null: none. */
  capBytes(): number | null;
  /** A look at the clock (lua_timeout, stop, Ctrl-C): may raise, or have the hook yield soon. */
  look(L: LuaState): void;
  /** "file.lua:LINE: " of the workflow code running in L, or "". */
  where(L: LuaState): string;
}

const mem = (what: string, bytes: number, live: number, cap: number) =>
  `not enough memory: ${what} would make a string of ${size(bytes)} while the run's Lua values hold ${size(live)}, over the run's Lua memory cap of ${size(cap)} (config{ lua_memory_mb = … })`;

/**
 * A run's Lua memory, capped for real. Every string the VM makes is counted before it is
 * allocated (the patched fengari and Shop's string functions say so); past the cap, what
 * the run still holds is counted by a census (lua-census.ts) — garbage does not count — and
 * the string is refused at the caller's line when it would not fit. Tables grow inside the
 * VM where nothing is told: the count hook looks at the JS heap and takes a census when it
 * has grown by a good share of what is left.
 */
export class LuaMemory implements PatchedSites {
  /** What the last census found. */
  private live = 0;
  /** Bytes of string made since (garbage or not). */
  private since = 0;
  private unlooked = 0;
  private ticks = 0;
  /** The JS heap's lowest point since the last census. */
  private heapLow = Infinity;
  /** Counting, or raising: strings made meanwhile (the message) are not checked again. */
  private busy = false;

  constructor(
    private readonly L: LuaState,
    private readonly host: MemoryHost,
  ) {}

  /** The patched fengari, about to make `bytes` of string: `..`, a growing buffer, a copy. */
  allocating(T: LuaState, bytes: number, site: 'concat' | 'buffer' | 'copy'): void {
    this.since += bytes;
    if ((this.unlooked += bytes) >= LOOK_BYTES) this.lookNow(T);
    if (this.live + this.since > (this.host.capBytes() ?? Infinity))
      this.overEstimate(T, bytes, site === 'concat' ? '`..`' : null);
  }

  /** Shop's own string functions, before they make `bytes`: raises "not enough memory" when it would pass the cap. */
  reserve(T: LuaState, bytes: number, what: string): void {
    const cap = this.host.capBytes();
    if (cap !== null && bytes > cap) this.raise(T, overCap(what, bytes, cap));
    this.since += bytes;
    if ((this.unlooked += bytes) >= LOOK_BYTES) this.lookNow(T);
    if (cap !== null && this.live + this.since > cap) this.overEstimate(T, bytes, what);
  }

  /** Work that makes nothing (bytes scanned, matching steps): a look at the clock every so often. */
  worked(T: LuaState, bytes: number): void {
    if ((this.unlooked += bytes) >= LOOK_BYTES) this.lookNow(T);
  }

  /** Calls nested past fengari's limit: a Lua error at the workflow's line, not "JS stack overflow" with none. */
  tooDeep(T: LuaState): void {
    this.raise(
      T,
      'stack overflow: calls nested more than 200 deep through metamethods or library functions (does a __tostring, __index or __concat call itself?)',
    );
  }

  /** From the count hook: the error when what the run holds passes its cap, found when the heap has grown. */
  checkHeap(): string | null {
    if (++this.ticks % HEAP_EVERY !== 0) return null;
    const cap = this.host.capBytes();
    if (cap === null) return null;
    const used = heapStatistics().used_heap_size;
    this.heapLow = Math.min(this.heapLow, used);
    if (used - this.heapLow < Math.max(cap / 16, (cap - this.live) / 2)) return null;
    this.count();
    if (this.live <= cap) return null;
    return `not enough memory: the run's Lua values hold ${size(this.live)} (tables, strings, functions), over the run's Lua memory cap of ${size(cap)} (config{ lua_memory_mb = … })`;
  }

  /** Strings made since the last census may pass the cap: count what is live; refuse `bytes` if they do not fit. */
  private overEstimate(T: LuaState, bytes: number, what: string | null): void {
    if (this.busy || !canRaise(T)) return;
    const cap = this.host.capBytes() ?? Infinity;
    if (bytes > cap) this.raise(T, overCap(what ?? this.running(T), bytes, cap));
    this.count();
    if (this.live + bytes > cap) this.raise(T, mem(what ?? this.running(T), bytes, this.live, cap));
    this.since = bytes;
  }

  private count() {
    this.busy = true;
    try {
      this.live = census(this.L).bytes;
    } finally {
      this.busy = false;
    }
    this.since = 0;
    this.heapLow = heapStatistics().used_heap_size;
  }

  private lookNow(T: LuaState) {
    this.unlooked = 0;
    if (this.busy || !canRaise(T)) return;
    this.host.look(T);
  }

  /** "sub()": the function making the string (what Lua code called it), for the message. */
  private running(T: LuaState): string {
    const ar = new lua.lua_Debug();
    if (!lua.lua_getstack(T, 0, ar)) return 'a string function';
    lua.lua_getinfo(T, to_luastring('n'), ar);
    return ar.name ? `${fengari.to_jsstring(ar.name)}()` : 'a string function';
  }

  private raise(T: LuaState, message: string): never {
    this.busy = true;
    try {
      lua.lua_pushstring(T, to_luastring(`${this.host.where(T)}${message}`));
    } finally {
      this.busy = false;
    }
    return lua.lua_error(T) as never;
  }
}
