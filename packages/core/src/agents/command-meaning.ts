import { COMMAND_OPTIONS, type OptionTable } from './command-options.js';
import { globMatches } from './gate-glob.js';
import type { Word } from './shell/shell-word.js';

/**
 * A command read by what its words mean: its subcommand (git push), the options it gives by
 * meaning (COMMAND_OPTIONS; for another program each short letter of a cluster apart, -xzf =
 * -x -z -f), and its operands in order. A pattern (the words of `Bash(git push --force*)`) is
 * read the same way, and matches a command that has its subcommand, every option it names in
 * any order, and its operands from the first: `git -C . push origin +main` is a
 * `git push --force`.
 */
interface Meaning {
  /** Subcommands; null where a word there is not known (a variable). */
  sub: (string | null)[];
  options: Set<string>;
  operands: Word[];
  /** A word after the program is a variable or a substitution: it could be any option or operand. */
  dynamic: boolean;
}

/** Whether the command (program name first) does what the pattern's words name. */
export function meansPattern(pattern: Word[], command: Word[]): boolean {
  const [program, ...patternArgs] = pattern;
  if (!program || !command.length || !globMatches(program.text, command[0]!.text)) return false;
  const table = program.text.includes('*') ? undefined : COMMAND_OPTIONS[program.text];
  const want = patternMeaning(table, patternArgs);
  if (!want) return false;
  const has = meaningOf(table, command.slice(1));
  for (let i = 0; i < want.sub.length; i++) {
    const sub = has.sub[i];
    if (sub === null) return true;
    if (sub === undefined) return has.dynamic;
    if (!globMatches(want.sub[i]!, sub)) return false;
  }
  if (has.dynamic) return true;
  if ([...want.options].some((o) => !has.options.has(o))) return false;
  return want.operands.every((p, i) => has.operands[i] !== undefined && globMatches(p.text, has.operands[i]!.text));
}

/** A pattern's meaning: `--force*` is the option --force; a last lone `*` is "and anything". Null when a glob stands where an option is. */
function patternMeaning(table: OptionTable | undefined, words: Word[]): (Meaning & { sub: string[] }) | null {
  const ws = words.at(-1)?.text === '*' ? words.slice(0, -1) : words;
  const stripped = ws.map((w) => (w.text.startsWith('-') ? { ...w, text: w.text.replace(/\*+$/, '') } : w));
  if (stripped.some((w) => w.text.startsWith('-') && w.text.includes('*'))) return null;
  const m = meaningOf(table, stripped);
  return m.sub.includes(null) ? null : (m as Meaning & { sub: string[] });
}

function meaningOf(table: OptionTable | undefined, words: Word[]): Meaning {
  const m: Meaning = { sub: [], options: new Set(), operands: [], dynamic: words.some((w) => w.dynamic) };
  let t = table;
  let i = 0;
  if (t?.subcommands) {
    // Global options are skipped; the first operand is the subcommand.
    i = readOptions(t, words, 0, m, false);
    const sub = words[i];
    if (sub) {
      m.sub.push(sub.dynamic ? null : sub.text);
      t = sub.dynamic ? undefined : (t.subcommands[sub.text] ?? {});
      i++;
    }
  }
  readOptions(t, words, i, m, true);
  for (const o of [...m.options]) for (const more of t?.implies?.[o] ?? []) m.options.add(more);
  return m;
}

/** Reads options and operands from `from`; with `all` false, stops at the first operand (a subcommand) and keeps no option. Returns where it stopped. */
function readOptions(t: OptionTable | undefined, words: Word[], from: number, m: Meaning, all: boolean): number {
  let ended = false;
  for (let i = from; i < words.length; i++) {
    const w = words[i]!;
    const text = w.text;
    if (!all && w.dynamic) return i;
    if (ended || text === '-' || !text.startsWith('-') || w.dynamic) {
      if (!all) return i;
      m.operands.push(w);
      const prefix = Object.keys(t?.operandPrefix ?? {}).find((p) => text.startsWith(p));
      if (prefix && !ended) m.options.add(t!.operandPrefix![prefix]!);
      continue;
    }
    if (text === '--') {
      if (!all) return i + 1;
      ended = true;
      continue;
    }
    const found: string[] = [];
    let takesNext = false;
    if (text.startsWith('--')) {
      const [name, value] = [text.slice(2).split('=')[0]!, text.includes('=')];
      const meanings = longMeanings(t, name);
      found.push(...meanings);
      takesNext = !value && meanings.some((x) => t?.valued?.includes(x));
    } else {
      for (let j = 1; j < text.length; j++) {
        const meanings = (t?.short?.[text[j]!] ?? `-${text[j]}`).split(' ');
        found.push(...meanings);
        if (meanings.some((x) => t?.valued?.includes(x))) {
          takesNext = j === text.length - 1;
          break;
        }
      }
    }
    if (all) for (const f of found) m.options.add(f);
    if (takesNext) i++;
  }
  return words.length;
}

/** --name's meanings: its own, or of every long option it is a prefix of (git and GNU tools take abbreviations). */
function longMeanings(t: OptionTable | undefined, name: string): string[] {
  const long = t?.long ?? {};
  if (name in long) return [long[name]!];
  const prefixed = name
    ? Object.keys(long)
        .filter((k) => k.startsWith(name))
        .map((k) => long[k]!)
    : [];
  return prefixed.length ? [...new Set(prefixed)] : [`--${name}`];
}
