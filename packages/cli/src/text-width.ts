/**
 * How many terminal columns text takes, for tables and live lines that must line up: East Asian
 * wide and fullwidth characters and emoji take two, combining marks and zero-width characters
 * none. string-width (already installed, for Ink) measures the same but costs ~80 ms to load
 * and first use (Intl.Segmenter, RGI_Emoji regexes), most of `shop list`'s start-up budget:
 * this walks code points with a small table, and plain ASCII never leaves the fast path.
 */

/** Unicode 17 East_Asian_Width W and F, less the emoji (measured by Emoji_Presentation below): [first, last] pairs. */
const WIDE = [
  0x1100, 0x115f, 0x2329, 0x232a, 0x2630, 0x2637, 0x268a, 0x268f, 0x2e80, 0x2ef3, 0x2f00, 0x2fd5, 0x2ff0, 0x303e,
  0x3041, 0x3096, 0x3099, 0x30ff, 0x3105, 0x31e5, 0x31ef, 0x3247, 0x3250, 0xa48c, 0xa490, 0xa4c6, 0xa960, 0xa97c,
  0xac00, 0xd7a3, 0xf900, 0xfaff, 0xfe10, 0xfe19, 0xfe30, 0xfe6b, 0xff01, 0xff60, 0xffe0, 0xffe6, 0x16fe0, 0x16fe4,
  0x16ff0, 0x16ff6, 0x17000, 0x18cda, 0x18cff, 0x18d20, 0x18d80, 0x18df2, 0x18e00, 0x19191, 0x191a0, 0x191d2, 0x1aff0,
  0x1b128, 0x1b132, 0x1b132, 0x1b150, 0x1b152, 0x1b155, 0x1b155, 0x1b164, 0x1b168, 0x1b170, 0x1b2fb, 0x1d300, 0x1d356,
  0x1d360, 0x1d376, 0x1f1ae, 0x1f1ae, 0x1f200, 0x1f202, 0x1f210, 0x1f231, 0x1f237, 0x1f237, 0x1f23b, 0x1f23b, 0x1f240,
  0x1f248, 0x1f260, 0x1f265, 0x1f6d9, 0x1f6d9, 0x1f7da, 0x1f7da, 0x1fa8b, 0x1fa8d, 0x1facc, 0x1facc, 0x1fadd, 0x1fadd,
  0x1faeb, 0x1faeb, 0x1faf9, 0x1fafa, 0x20000, 0x2fffd, 0x30000, 0x3fffd,
];

function inWide(cp: number): boolean {
  let lo = 0;
  let hi = WIDE.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < WIDE[2 * mid]) hi = mid - 1;
    else if (cp > WIDE[2 * mid + 1]) lo = mid + 1;
    else return true;
  }
  return false;
}

/** Marks, format characters (zero-width space, joiners, soft hyphen), controls, Hangul fillers. */
const ZERO = /[\p{Mn}\p{Me}\p{Cf}\p{Cc}\u115f\u1160\u3164\uffa0]/u;
const EMOJI = /\p{Emoji_Presentation}/u;
const PICTOGRAPHIC = /\p{Extended_Pictographic}/u;
const KEYCAP_BASE = /^[0-9#*]$/;
/** Zero-width characters that end a character's cluster (Unicode's grapheme Control): what follows them stands alone. */
const BREAKS = /[\p{Cc}\p{Zl}\p{Zp}\u200b\u2060-\u2064\ufeff]/u;
const ASCII = /^[\x20-\x7e]*$/;
const ZWJ = 0x200d;
const VS16 = 0xfe0f;
const KEYCAP = 0x20e3;
const isModifier = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;
const isRegional = (cp: number) => cp >= 0x1f1e6 && cp <= 0x1f1ff;
/** Conjoining Hangul jamo: a leading consonant, then a vowel, then maybe a final one, show as one syllable. */
const isLvSyllable = (cp: number) => cp >= 0xac00 && cp <= 0xd7a3 && (cp - 0xac00) % 28 === 0;
const isLvtSyllable = (cp: number) => cp >= 0xac00 && cp <= 0xd7a3 && (cp - 0xac00) % 28 !== 0;
const isLeadJamo = (cp: number) => (cp >= 0x1100 && cp <= 0x115e) || (cp >= 0xa960 && cp <= 0xa97c);
const isVowelJamo = (cp: number) => (cp >= 0x1161 && cp <= 0x11a7) || (cp >= 0xd7b0 && cp <= 0xd7c6);
const isFinalJamo = (cp: number) => (cp >= 0x11a8 && cp <= 0x11ff) || (cp >= 0xd7cb && cp <= 0xd7fb);

/**
 * Each code point of `text` with the columns it adds where it stands: the parts of a joined
 * emoji (ZWJ sequences, skin tones) or Hangul syllable add none beyond the first; a text-style
 * symbol turned emoji by U+FE0F takes two, a flag's two letters one each.
 */
export function* columnsOf(text: string): Generator<[char: string, columns: number]> {
  let prev = -1;
  let prevColumns = 0;
  /** What the next jamo may join: a leading jamo takes a vowel; a leading+vowel (LV) a vowel or a final; LVT a final. */
  let syllable: 'lead' | 'open' | 'closed' | null = null;
  /** The character marks, keycaps and skin tones attach to, while no control or zero-width space has come between. */
  let base = -1;
  let baseOpen = false;
  /** The code point before a ZWJ was pictographic: the next pictograph is drawn into it. */
  let pictographJoin = false;
  let lastPictographic = false;
  for (const char of text) {
    const cp = char.codePointAt(0)!;
    const joinsSyllable: boolean =
      (isVowelJamo(cp) && (syllable === 'lead' || syllable === 'open')) ||
      (isFinalJamo(cp) && (syllable === 'open' || syllable === 'closed'));
    let columns: number;
    // U+FE0F makes a pictograph drawn as text (❤) an emoji; U+20E3 makes a digit a keycap (1️⃣): two columns.
    if (cp === VS16)
      columns = prevColumns === 1 && prev === base && PICTOGRAPHIC.test(String.fromCodePoint(prev)) ? 1 : 0;
    else if (cp === KEYCAP) columns = prevColumns === 1 && KEYCAP_BASE.test(String.fromCodePoint(base)) ? 1 : 0;
    else if (ZERO.test(char) || joinsSyllable) columns = 0;
    else if (prev === ZWJ && pictographJoin && PICTOGRAPHIC.test(char)) columns = 0;
    else if (isModifier(cp) && baseOpen) columns = 0;
    else if (isRegional(cp)) columns = 1;
    else columns = EMOJI.test(char) || inWide(cp) ? 2 : 1;
    syllable = isLeadJamo(cp)
      ? 'lead'
      : (joinsSyllable && isVowelJamo(cp)) || isLvSyllable(cp)
        ? 'open'
        : joinsSyllable || isLvtSyllable(cp)
          ? 'closed'
          : null;
    if (columns > 0 && cp !== VS16 && cp !== KEYCAP) [base, baseOpen] = [cp, true];
    else if (BREAKS.test(char)) baseOpen = false;
    if (cp === ZWJ) pictographJoin = lastPictographic;
    else if (cp !== VS16 && !isModifier(cp)) lastPictographic = PICTOGRAPHIC.test(char);
    if (cp !== VS16 && cp !== ZWJ) prevColumns = columns || prevColumns;
    prev = cp;
    yield [char, columns];
  }
}

/** The columns `text` takes on a terminal. */
export function textWidth(text: string): number {
  if (ASCII.test(text)) return text.length;
  let n = 0;
  for (const [, columns] of columnsOf(text)) n += columns;
  return n;
}

/** `text` in at most `width` columns, cut with "…" (a wide character is never split; marks stay with theirs). */
export function cutToWidth(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  const room = Math.max(0, width - 1);
  let kept = '';
  let used = 0;
  for (const [char, columns] of columnsOf(text)) {
    if (used + columns > room) break;
    kept += char;
    used += columns;
  }
  return `${kept.trimEnd()}…`;
}
