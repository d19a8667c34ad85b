import type { LuaThread, LuaVm, ResumeWith } from '../lua/lua-vm.js';
import { recordedValue } from '../lua/calls/raised.js';
import type { ReplayLog } from './replay-log.js';
import { newStrand, within, type ParallelGroup, type Strand } from './strands.js';

/**
 * The scheduler's threads: which run next, which wait on which call, and the delivery
 * order results are handed over in (recorded ones from the log, then live ones).
 */
export class Threads {
  readonly byLua = new Map<LuaThread, Strand>();
  readonly ready: Strand[] = [];
  /** Threads waiting on a call's result, by the call's key. */
  readonly blocked = new Map<string, Strand>();
  main: Strand | null = null;
  /** The delivery number the next result handed to Lua takes. */
  nextDelivery = 1;
  /** Replay until every recorded result is handed over; live calls start only after it. */
  phase: 'replay' | 'live' = 'replay';
  deferred: { path: string; start: () => Promise<void> | void }[] = [];
  /** Threads cancelled with their branches: results still due to them are dropped. */
  readonly cancelledPaths: string[] = [];
  /** When the thread running now was resumed (pure-Lua slices, lua_timeout). */
  sliceStart = 0;
  /** When the file's top-level code started (lua_timeout while it loads). */
  loadStart = 0;
  vm: LuaVm | null = null;

  constructor(private readonly seed: number) {}

  adopt(lua: LuaThread, path: string, group: ParallelGroup | null): Strand {
    const s = newStrand(lua, path, this.seed, group);
    this.byLua.set(lua, s);
    return s;
  }

  /** Lets a finished or cancelled thread go. */
  forget(t: Strand) {
    if (!this.byLua.delete(t.lua)) return;
    if (t.state !== 'done' && t.state !== 'failed') t.state = 'cancelled';
    const i = this.ready.indexOf(t);
    if (i >= 0) this.ready.splice(i, 1);
    this.vm!.release(t.lua);
  }

  isCancelled(key: string): boolean {
    return this.cancelledPaths.some((p) => within(key, p));
  }

  makeReady(s: Strand, input: ResumeWith) {
    s.state = 'ready';
    s.input = input;
    this.ready.push(s);
  }

  /** Runs `fn` now when live; during replay, once every recorded result is handed over. */
  async whenLive(path: string, fn: () => Promise<unknown>): Promise<void> {
    if (this.phase === 'live') await fn();
    else this.deferred.push({ path, start: () => fn().then(() => undefined) });
  }

  /** Hands the next result, in delivery order, to the thread waiting on it. */
  deliverNext(log: ReplayLog, live: Map<number, { key: string; value: unknown }>): boolean {
    const n = this.nextDelivery;
    const rec = n <= log.lastDelivered ? log.delivery(n) : undefined;
    const item = rec ? { key: rec.key, value: recordedValue(rec.resultJson) } : live.get(n);
    if (!item) return false;
    const s = this.blocked.get(item.key);
    if (s) {
      this.blocked.delete(item.key);
      this.makeReady(s, { kind: 'values', values: [item.value] });
    } else if (!this.isCancelled(item.key)) return false;
    live.delete(n);
    this.nextDelivery++;
    return true;
  }

  /** A recorded result due now that replay has not handed over (the script went another way). */
  overdue(log: ReplayLog) {
    return this.nextDelivery <= log.lastDelivered ? log.delivery(this.nextDelivery) : undefined;
  }
}
