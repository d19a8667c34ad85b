import fengari from './patched-fengari.js';
import type { LuaState } from './convert.js';
import { CAPTURE, MatchState, PatternError } from './pattern-match.js';
import type { StringBounds } from './string-limits.js';

const { lua } = fengari;

// The matcher string.find, match, gmatch (string-patterns.ts) and gsub (string-gsub.ts) share.

/** Matching steps one call may take: far past real patterns, well under a second of work. */
export const BASE_STEPS = 5_000_000;
export const stepsFor = (subject: Uint8Array) => BASE_STEPS + 16 * subject.length;

export interface PatternLimits extends StringBounds {
  /** Bytes a string made by gsub may have (the run's Lua memory cap); null: no cap. */
  maxStringBytes(): number | null;
}

/** Matching steps between two looks at the clock, in bytes of work: enough for a look each time. */
const STEPS_WORTH = 1024 * 1024;

/** A matcher for `s` that looks at the run's clock as it goes. */
export function matcher(L: LuaState, limits: PatternLimits, s: Uint8Array, p: Uint8Array, budget: number): MatchState {
  return new MatchState(s, p, budget, () => limits.worked(L, STEPS_WORTH));
}

/** Pushes capture `i` of a match over [s, e) (the whole match when the pattern has none). */
export function pushCapture(L: LuaState, ms: MatchState, i: number, s: number, e: number) {
  if (i >= ms.level) {
    if (i !== 0) throw new PatternError(`invalid capture index %${i + 1}`);
    lua.lua_pushlstring(L, ms.src.subarray(s, e), e - s);
    return;
  }
  const { init, len } = ms.capture[i];
  if (len === CAPTURE.UNFINISHED) throw new PatternError('unfinished capture');
  if (len === CAPTURE.POSITION) lua.lua_pushinteger(L, init + 1);
  else lua.lua_pushlstring(L, ms.src.subarray(init, init + len), len);
}
