import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';

const { lua } = fengari;

/*
 * The few places Shop reaches past fengari's API into its objects (fengari 0.1.5, pinned
 * by fengari-patch.ts): each is the only way to do something the bounds need.
 */

interface State {
  stack: { value: { realstring: Uint8Array } }[];
  top: number;
  hookcount: number;
  errorJmp: unknown;
  ci: { nresults: number };
}

const EMPTY = new Uint8Array(0);

/**
 * Pushes `bytes` as a Lua string without copying them: lua_pushlstring copies, and a
 * string function that built a 200 MB result held it twice at its peak. `bytes` must not
 * change afterwards (Lua strings are immutable).
 */
export function pushOwnedString(L: LuaState, bytes: Uint8Array): void {
  lua.lua_pushlstring(L, EMPTY, 0);
  if (bytes.length) (L as State).stack[(L as State).top - 1].value.realstring = bytes;
}

/**
 * Makes the count hook run at the next instruction: a look at the clock inside a string
 * operation found the scheduler's slice over, and only the hook can yield the thread.
 */
export function hookSoon(L: LuaState): void {
  (L as State).hookcount = 1;
}

/** Whether a Lua error raised now is caught (in a running thread, a pcall): else fengari aborts. */
export function canRaise(L: LuaState): boolean {
  return (L as State).errorJmp != null;
}

/**
 * Whether the JS function running now was called as a statement (`run("coder")` alone): its
 * caller keeps none of its results, and fengari drops whatever it returns.
 */
export function wantsNoResults(L: LuaState): boolean {
  return (L as State).ci.nresults === 0;
}
