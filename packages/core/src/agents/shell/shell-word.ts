/**
 * A shell word as the gates read it: its text after quote removal, which of its characters
 * were unquoted (only those take part in brace expansion, globbing and assignments), and
 * whether it holds an expansion whose value is not known until it runs.
 */
export interface Word {
  /** After quote removal; an expansion is kept as written ($X, ${X}) or as `$(…)`. */
  text: string;
  /** Per character of text: '1' unquoted, '0' quoted or from an expansion. */
  active: string;
  /** Holds $X, ${…}, $(…), `…`, <(…): its value is not known here. */
  dynamic: boolean;
}

/** What a reading refuses: a command Shop cannot read with certainty is held, never allowed. */
export class Unreadable extends Error {}

/** A bound on the words one word may expand into ({a,b}{c,d}…). */
const MAX_EXPANDED = 256;

export const literal = (text: string): Word => ({ text, active: '1'.repeat(text.length), dynamic: false });

/** Whether the unquoted part of a word is a glob (* ? […]): as a program name, not one command. */
export const isGlob = (w: Word) =>
  [...w.text].some(
    (c, i) =>
      w.active[i] === '1' &&
      (c === '*' ||
        c === '?' ||
        (c === '[' && [...w.text.slice(i + 1)].some((d, j) => d === ']' && w.active[i + 1 + j] === '1'))),
  );

/** Whether the word is all unquoted and spells `text` (a reserved word: `if`, `{`, `]]` …). */
export const isBare = (w: Word, text: string) => w.text === text && !w.dynamic && !w.active.includes('0');

/** `NAME=value` (or NAME+=, NAME[i]=) with the name and `=` unquoted: an assignment, not a word. */
export function isAssignment(w: Word): boolean {
  const m = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/.exec(w.text);
  return Boolean(m) && !w.active.slice(0, m![0].length).includes('0');
}

/**
 * Bash's brace expansion on the unquoted braces of a word: `-{r,f}` is `-r -f`, `{1..3}` is
 * `1 2 3`. A word that would expand into more than MAX_EXPANDED is unreadable.
 */
export function expandBraces(w: Word): Word[] {
  const out = expand(w, 0);
  if (out.length > MAX_EXPANDED) throw new Unreadable(`a brace expansion makes more than ${MAX_EXPANDED} words`);
  return out;
}

function expand(w: Word, from: number): Word[] {
  for (let open = w.text.indexOf('{', from); open >= 0; open = w.text.indexOf('{', open + 1)) {
    if (w.active[open] !== '1' || (open > 0 && w.text[open - 1] === '$' && w.active[open - 1] === '1')) continue;
    const found = alternatives(w, open);
    if (!found) continue;
    const head = slice(w, 0, open);
    const tail = slice(w, found.close + 1, w.text.length);
    const words: Word[] = [];
    for (const alt of found.alts) {
      const joined = join(join(head, alt), tail);
      words.push(...expand(joined, head.text.length + alt.text.length));
      if (words.length > MAX_EXPANDED) return words;
    }
    return words;
  }
  return [w];
}

/** The alternatives of the brace group opening at `open` ({a,b} or {x..y}), or null when it is none. */
function alternatives(w: Word, open: number): { alts: Word[]; close: number } | null {
  let depth = 0;
  const commas: number[] = [];
  for (let i = open; i < w.text.length; i++) {
    if (w.active[i] !== '1') continue;
    const c = w.text[i];
    if (c === '{') depth++;
    else if (c === ',' && depth === 1) commas.push(i);
    else if (c === '}' && --depth === 0) {
      if (commas.length) {
        const bounds = [open, ...commas, i];
        return { alts: bounds.slice(1).map((end, k) => slice(w, bounds[k]! + 1, end)), close: i };
      }
      const seq = sequence(w.text.slice(open + 1, i));
      return seq ? { alts: seq.map(literal), close: i } : null;
    }
  }
  return null;
}

/** {1..5}, {a..e}, {10..1..3}: bash's sequences of integers or of single letters. */
function sequence(body: string): string[] | null {
  const m = /^(-?\d+|[A-Za-z])\.\.(-?\d+|[A-Za-z])(?:\.\.(-?\d+))?$/.exec(body);
  if (!m) return null;
  const numeric = /\d/.test(m[1]!);
  if (numeric !== /\d/.test(m[2]!)) return null;
  const a = numeric ? Number(m[1]) : m[1]!.charCodeAt(0);
  const b = numeric ? Number(m[2]) : m[2]!.charCodeAt(0);
  const step = Math.abs(Number(m[3] ?? 1)) || 1;
  if (Math.abs(b - a) / step > MAX_EXPANDED)
    throw new Unreadable(`a brace expansion makes more than ${MAX_EXPANDED} words`);
  const out: string[] = [];
  for (let v = a; a <= b ? v <= b : v >= b; v += a <= b ? step : -step)
    out.push(numeric ? String(v) : String.fromCharCode(v));
  return out;
}

const slice = (w: Word, from: number, to: number): Word => ({
  text: w.text.slice(from, to),
  active: w.active.slice(from, to),
  dynamic: w.dynamic,
});
const join = (a: Word, b: Word): Word => ({
  text: a.text + b.text,
  active: a.active + b.active,
  dynamic: a.dynamic || b.dynamic,
});
