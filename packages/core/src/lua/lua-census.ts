import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';

const { lua } = fengari;

/*
 * What a run's Lua holds, found by walking everything its state can still reach — the
 * registry (globals, loaded libraries, the threads the scheduler holds), every thread's
 * stack, closures' upvalues and constants, tables' keys, values and metatables — the way
 * Lua's own collector marks. Exact for strings (their bytes); for the rest an estimate of
 * what fengari's objects take on the V8 heap, measured on Node 20 (bytes per object).
 * fengari has no collector of its own and cannot say this; the JS heap counts every run
 * of the process together and its garbage, so only a walk tells one run's live memory.
 */
const STRING = 96;
const TABLE = 450;
const ENTRY = 176;
const FUNCTION = 120;
const SLOT = 40;
const INSTRUCTION = 56;
const THREAD = 1000;

/** A TValue: a type tag and a value (fengari/src/lobject.js). */
interface TValue {
  type: number;
  value: unknown;
}
interface TString {
  realstring: Uint8Array;
  hash: string | null;
}
interface Table {
  strong: Map<unknown, { key: TValue; value: TValue }>;
  dead_strong: Map<unknown, unknown>;
  metatable: Table | null;
}
interface Proto {
  k: TValue[];
  p: Proto[];
  code: unknown[];
  source: TString | null;
}
interface Thread {
  stack: (TValue | undefined)[];
  top: number;
}
interface GlobalState {
  l_registry: TValue;
  mt: (Table | null | undefined)[];
  mainthread: Thread;
}

interface CensusResult {
  /** Everything, estimated: strings exactly, the rest by fengari's object sizes. */
  bytes: number;
  /** The bytes of strings alone. */
  stringBytes: number;
}

const TABLE_KIND = 1;
const PROTO_KIND = 2;
const THREAD_KIND = 3;
const CLOSURE_KIND = 4;

/** What the Lua state `L` (all its threads) can still reach, in bytes. */
export function census(L: LuaState): CensusResult {
  const g = (L as { l_G: GlobalState }).l_G;
  const seen = new Set<object>();
  // Pairs of (kind, object) still to look into: a list, not recursion, so a table nested
  // 100,000 deep is walked like any other.
  const todo: unknown[] = [];
  let bytes = 0;
  let stringBytes = 0;

  const string = (ts: TString | null) => {
    if (!ts || seen.has(ts)) return;
    seen.add(ts);
    const n = ts.realstring.byteLength + (ts.hash === null ? 0 : ts.hash.length);
    stringBytes += n;
    bytes += STRING + n;
  };
  const later = (kind: number, o: object | null | undefined) => {
    if (!o || seen.has(o)) return;
    seen.add(o);
    todo.push(kind, o);
  };
  const value = (tv: TValue | undefined): void => {
    const v = tv?.value;
    if (v === null || typeof v !== 'object') return;
    switch (tv!.type & 0x0f) {
      case lua.LUA_TSTRING:
        return string(v as TString);
      case lua.LUA_TTABLE:
        return later(TABLE_KIND, v);
      case lua.LUA_TTHREAD:
        return later(THREAD_KIND, v);
      case lua.LUA_TFUNCTION:
      case lua.LUA_TUSERDATA:
        return later(CLOSURE_KIND, v);
    }
  };
  const look: Record<number, (o: never) => void> = {
    [TABLE_KIND]: (t: Table) => {
      bytes += TABLE + ENTRY * (t.strong.size + t.dead_strong.size);
      for (const e of t.strong.values()) {
        value(e.key);
        value(e.value);
      }
      later(TABLE_KIND, t.metatable);
    },
    [PROTO_KIND]: (p: Proto) => {
      bytes += FUNCTION + INSTRUCTION * p.code.length + SLOT * p.k.length;
      string(p.source);
      for (const k of p.k) value(k);
      for (const inner of p.p) later(PROTO_KIND, inner);
    },
    [THREAD_KIND]: (T: Thread) => {
      bytes += THREAD + SLOT * T.stack.length;
      for (let i = 0; i < T.top; i++) value(T.stack[i]);
    },
    // A Lua closure (prototype, upvalues), a JS closure (upvalues) or a userdata (metatable,
    // user value); light JS functions are JS functions, not objects, and hold nothing of Lua's.
    [CLOSURE_KIND]: (c: {
      p?: Proto;
      upvals?: (TValue | undefined)[];
      upvalue?: TValue[];
      metatable?: Table | null;
      uservalue?: TValue;
    }) => {
      const slots = c.upvals ?? c.upvalue ?? [];
      bytes += FUNCTION + SLOT * slots.length;
      for (const u of slots) value(u);
      later(PROTO_KIND, c.p);
      later(TABLE_KIND, c.metatable);
      value(c.uservalue);
    },
  };

  value(g.l_registry);
  for (const mt of g.mt) later(TABLE_KIND, mt);
  later(THREAD_KIND, g.mainthread);
  while (todo.length) {
    const o = todo.pop() as never;
    look[todo.pop() as number](o);
  }
  return { bytes, stringBytes };
}
