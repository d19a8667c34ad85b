/**
 * Lua 5.3 pattern matching over byte strings, ported from fengari's lstrlib.js (MIT,
 * © 2017-2019 Benoit Giannangeli and contributors) with one change: every step counts
 * against a budget. fengari's matcher backtracks exponentially with no hook inside, so
 * `("a"):rep(3000):find(".-.-.-b")` ran for ever and nothing could stop it. The budget is
 * a number of steps, not time, so a pattern that fails fails the same way on replay.
 */

const L_ESC = 37; // '%'
const CAP_UNFINISHED = -1;
const CAP_POSITION = -2;
const MAXCCALLS = 200;
const MAXCAPTURES = 32;

/** A pattern error, raised in Lua at the caller's line. */
export class PatternError extends Error {}

interface Capture {
  init: number;
  len: number;
}

export class MatchState {
  level = 0;
  matchdepth = MAXCCALLS;
  readonly capture: Capture[] = [];
  /** Steps left before the match gives up ("pattern too complex"). */
  steps: number;

  /**
   * `onSteps` is called every 65,536 steps (about a millisecond): the budget is far more
   * on a long subject (16 steps a byte), so the run's clock is looked at as it goes.
   */
  constructor(
    readonly src: Uint8Array,
    readonly p: Uint8Array,
    readonly budget: number,
    private readonly onSteps?: () => void,
  ) {
    this.steps = budget;
  }

  get pEnd() {
    return this.p.length;
  }

  /** Before each attempt at a new position. */
  reprep() {
    this.level = 0;
  }

  spend() {
    if (--this.steps < 0) {
      throw new PatternError(
        `pattern too complex: over ${this.budget} matching steps on a ${this.src.length}-byte string (the pattern backtracks too much; simplify it)`,
      );
    }
    if ((this.steps & 0xffff) === 0) this.onSteps?.();
  }
}

const isalpha = (e: number) => (97 <= e && e <= 122) || (65 <= e && e <= 90);
const isdigit = (e: number) => 48 <= e && e <= 57;
const iscntrl = (e: number) => e <= 0x1f || e === 0x7f;
const isgraph = (e: number) => 33 <= e && e <= 126;
const islower = (e: number) => 97 <= e && e <= 122;
const isupper = (e: number) => 65 <= e && e <= 90;
const isalnum = (e: number) => isalpha(e) || isdigit(e);
const ispunct = (e: number) => isgraph(e) && !isalnum(e);
const isspace = (e: number) => e === 32 || (e >= 9 && e <= 13);
const isxdigit = (e: number) => isdigit(e) || (65 <= e && e <= 70) || (97 <= e && e <= 102);
export { isdigit };

const CLASSES: Record<number, (c: number) => boolean> = {
  97: isalpha,
  99: iscntrl,
  100: isdigit,
  103: isgraph,
  108: islower,
  112: ispunct,
  115: isspace,
  117: isupper,
  119: isalnum,
  120: isxdigit,
  122: (c) => c === 0,
};

function matchClass(c: number, cl: number): boolean {
  const lower = cl | 0x20;
  const test = isalpha(cl) ? CLASSES[lower] : undefined;
  if (!test) return cl === c;
  return cl === lower ? test(c) : !test(c);
}

function classEnd(ms: MatchState, p: number): number {
  const P = ms.p;
  switch (P[p++]) {
    case L_ESC:
      if (p === ms.pEnd) throw new PatternError("malformed pattern (ends with '%')");
      return p + 1;
    case 91: // '['
      if (P[p] === 94) p++;
      do {
        if (p === ms.pEnd) throw new PatternError("malformed pattern (missing ']')");
        if (P[p++] === L_ESC && p < ms.pEnd) p++;
      } while (P[p] !== 93);
      return p + 1;
    default:
      return p;
  }
}

function matchBracketClass(ms: MatchState, c: number, p: number, ec: number): boolean {
  const P = ms.p;
  let sig = true;
  if (P[p + 1] === 94) {
    sig = false;
    p++;
  }
  while (++p < ec) {
    if (P[p] === L_ESC) {
      p++;
      if (matchClass(c, P[p])) return sig;
    } else if (P[p + 1] === 45 && p + 2 < ec) {
      p += 2;
      if (P[p - 2] <= c && c <= P[p]) return sig;
    } else if (P[p] === c) return sig;
  }
  return !sig;
}

function singleMatch(ms: MatchState, s: number, p: number, ep: number): boolean {
  if (s >= ms.src.length) return false;
  const c = ms.src[s];
  switch (ms.p[p]) {
    case 46:
      return true;
    case L_ESC:
      return matchClass(c, ms.p[p + 1]);
    case 91:
      return matchBracketClass(ms, c, p, ep - 1);
    default:
      return ms.p[p] === c;
  }
}

function matchBalance(ms: MatchState, s: number, p: number): number | null {
  if (p >= ms.pEnd - 1) throw new PatternError("malformed pattern (missing arguments to '%b'");
  if (ms.src[s] !== ms.p[p]) return null;
  const b = ms.p[p];
  const e = ms.p[p + 1];
  let cont = 1;
  while (++s < ms.src.length) {
    ms.spend();
    if (ms.src[s] === e) {
      if (--cont === 0) return s + 1;
    } else if (ms.src[s] === b) cont++;
  }
  return null;
}

function maxExpand(ms: MatchState, s: number, p: number, ep: number): number | null {
  let i = 0;
  while (singleMatch(ms, s + i, p, ep)) {
    ms.spend();
    i++;
  }
  while (i >= 0) {
    const res = match(ms, s + i, ep + 1);
    if (res !== null) return res;
    i--;
  }
  return null;
}

function minExpand(ms: MatchState, s: number, p: number, ep: number): number | null {
  for (;;) {
    const res = match(ms, s, ep + 1);
    if (res !== null) return res;
    if (singleMatch(ms, s, p, ep)) s++;
    else return null;
  }
}

function startCapture(ms: MatchState, s: number, p: number, what: number): number | null {
  const level = ms.level;
  if (level >= MAXCAPTURES) throw new PatternError('too many captures');
  ms.capture[level] = { init: s, len: what };
  ms.level = level + 1;
  const res = match(ms, s, p);
  if (res === null) ms.level--;
  return res;
}

function endCapture(ms: MatchState, s: number, p: number): number | null {
  let l = ms.level - 1;
  while (l >= 0 && ms.capture[l].len !== CAP_UNFINISHED) l--;
  if (l < 0) throw new PatternError('invalid pattern capture');
  ms.capture[l].len = s - ms.capture[l].init;
  const res = match(ms, s, p);
  if (res === null) ms.capture[l].len = CAP_UNFINISHED;
  return res;
}

function checkCapture(ms: MatchState, l: number): number {
  l -= 49;
  if (l < 0 || l >= ms.level || ms.capture[l].len === CAP_UNFINISHED)
    throw new PatternError(`invalid capture index %${l + 1}`);
  return l;
}

function matchCapture(ms: MatchState, s: number, l: number): number | null {
  l = checkCapture(ms, l);
  const { init, len } = ms.capture[l];
  if (ms.src.length - s < len) return null;
  for (let k = 0; k < len; k++) if (ms.src[init + k] !== ms.src[s + k]) return null;
  return s + len;
}

/** Matches pattern position `p` at subject position `s`: the end of the match, or null. */
export function match(ms: MatchState, s: number | null, p: number): number | null {
  if (ms.matchdepth-- === 0) throw new PatternError('pattern too complex');
  const P = ms.p;
  for (;;) {
    ms.spend();
    if (s === null || p === ms.pEnd) break;
    const c = P[p];
    if (c === 40) {
      // '('
      s = P[p + 1] === 41 ? startCapture(ms, s, p + 2, CAP_POSITION) : startCapture(ms, s, p + 1, CAP_UNFINISHED);
      break;
    } else if (c === 41) {
      // ')'
      s = endCapture(ms, s, p + 1);
      break;
    } else if (c === 36 && p + 1 === ms.pEnd) {
      // '$' at the end
      s = ms.src.length === s ? s : null;
      break;
    } else if (c === L_ESC) {
      const n = P[p + 1];
      if (n === 98) {
        // %b
        s = matchBalance(ms, s, p + 2);
        if (s === null) break;
        p += 4;
        continue;
      } else if (n === 102) {
        // %f
        p += 2;
        if (P[p] !== 91) throw new PatternError("missing '[' after '%f' in pattern");
        const ep = classEnd(ms, p);
        const previous = s === 0 ? 0 : ms.src[s - 1];
        const current = s === ms.src.length ? 0 : ms.src[s];
        if (!matchBracketClass(ms, previous, p, ep - 1) && matchBracketClass(ms, current, p, ep - 1)) {
          p = ep;
          continue;
        }
        s = null;
        break;
      } else if (isdigit(n)) {
        s = matchCapture(ms, s, n);
        if (s === null) break;
        p += 2;
        continue;
      }
    }
    // The default case (C Lua's `goto dflt`): a single character class, maybe with a suffix.
    const ep = classEnd(ms, p);
    const suffix = P[ep];
    if (!singleMatch(ms, s, p, ep)) {
      if (suffix === 42 || suffix === 63 || suffix === 45) {
        // * ? -: accept empty
        p = ep + 1;
        continue;
      }
      s = null;
      break;
    }
    if (suffix === 63) {
      // ?
      const res = match(ms, s + 1, ep + 1);
      if (res !== null) {
        s = res;
        break;
      }
      p = ep + 1;
      continue;
    }
    if (suffix === 43) {
      // +
      s = maxExpand(ms, s + 1, p, ep);
      break;
    }
    if (suffix === 42) {
      // *
      s = maxExpand(ms, s, p, ep);
      break;
    }
    if (suffix === 45) {
      // -
      s = minExpand(ms, s, p, ep);
      break;
    }
    s++;
    p = ep;
  }
  ms.matchdepth++;
  return s;
}

export const CAPTURE = { UNFINISHED: CAP_UNFINISHED, POSITION: CAP_POSITION };
