import { lex, MAX_DEPTH } from './shell-lexer.js';
import type { Redirect } from './shell-tokens.js';
import { simpleCommands, type SimpleCommand } from './shell-parse.js';
import { isAssignment, isGlob, Unreadable, type Word } from './shell-word.js';
import { gitAlias, NOT_FILES, programName, teeFiles } from './program-words.js';
import { readOptions, SHELLS, WRAPPERS, type Wrapper } from './shell-wrappers.js';

/**
 * What a Bash tool call's command does, as the gates need it: every simple command the shell
 * parses (what allow rules match), every command that runs with each wrapper peeled off (what
 * hold rules match), and the files it writes. Pure and bounded: a command longer than
 * MAX_COMMAND_CHARS, nested deeper than MAX_DEPTH, or with a piece Shop cannot read with
 * certainty is `unreadable` — held, never allowed.
 */
export interface ShellReading {
  /** Each simple command as written (quotes removed, one space between words, assignments and wrappers kept). */
  parts: string[];
  /** Every command that runs, each wrapper layer apart: its program by name (/bin/rm → rm), assignments dropped. */
  runs: Word[][];
  /** Files it writes: redirections (> >> &> >| <>) and tee's files. */
  writes: Word[];
  /** Why it cannot be read with certainty, or null. */
  unreadable: string | null;
}

const MAX_COMMAND_CHARS = 64 * 1024;
const MAX_WORDS = 50_000;
const WRITES = new Set(['>', '>>', '>|', '&>', '&>>', '<>', '>&']);

export function readShellCommand(command: string): ShellReading {
  const out: ShellReading = { parts: [], runs: [], writes: [], unreadable: null };
  try {
    readScript(command, 0, out, true);
    return out;
  } catch (e) {
    if (e instanceof Unreadable) return { parts: [], runs: [], writes: [], unreadable: e.message };
    throw e;
  }
}

/** `shellLevel`: the command line itself, whose simple commands are the parts allow rules match (not a script run by sh -c or eval). */
function readScript(src: string, depth: number, out: ShellReading, shellLevel = false): void {
  if (depth > MAX_DEPTH) throw new Unreadable(`it runs shells inside shells more than ${MAX_DEPTH} deep`);
  if (src.length > MAX_COMMAND_CHARS) throw new Unreadable(`it is longer than ${MAX_COMMAND_CHARS / 1024} KiB`);
  if (src.includes('\0')) throw new Unreadable('it holds a NUL character');
  const { tokens, nested } = lex(src);
  for (const list of [tokens, ...nested])
    for (const cmd of simpleCommands(list)) readSimple(cmd, depth, out, shellLevel);
}

function readSimple(cmd: SimpleCommand, depth: number, out: ShellReading, shellLevel: boolean): void {
  if (shellLevel && cmd.words.length) out.parts.push([...cmd.assignments, ...cmd.words].map((w) => w.text).join(' '));
  for (const r of cmd.redirects) {
    if (WRITES.has(r.op) && !(r.op === '>&' && /^(\d+-?|-)$/.test(r.target.text)) && !NOT_FILES.test(r.target.text))
      out.writes.push(r.target);
  }
  runChain(cmd.words, cmd.redirects, depth, out);
}

/** A command and, layer by layer, the command each wrapper of it runs. */
function runChain(words: Word[], redirects: Redirect[], depth: number, out: ShellReading): void {
  let layer = words;
  for (let n = 0; layer.length; n++) {
    if (n > MAX_DEPTH) throw new Unreadable(`it wraps a command more than ${MAX_DEPTH} times`);
    const prog = layer[0]!;
    if (prog.dynamic) throw new Unreadable(`its program ${prog.text} is a variable or a substitution`);
    if (isGlob(prog)) throw new Unreadable(`its program ${prog.text} is a glob pattern`);
    const name = programName(prog.text);
    const args = layer.slice(1);
    out.runs.push([{ ...prog, text: name }, ...args]);
    if (out.runs.reduce((n, r) => n + r.length, 0) > MAX_WORDS)
      throw new Unreadable(`it has more than ${MAX_WORDS} words`);
    if (name === 'tee') out.writes.push(...teeFiles(args));
    layer = inner(name, args, redirects, depth, out) ?? [];
  }
}

/** The command a wrapper runs (its words), or null; a shell's or eval's script is read here. */
function inner(name: string, args: Word[], redirects: Redirect[], depth: number, out: ShellReading): Word[] | null {
  if (SHELLS.has(name)) return shellScript(args, redirects, depth, out);
  if (name === 'eval') {
    if (args.some((a) => a.dynamic)) throw new Unreadable('eval runs a variable or a substitution');
    readScript(args.map((a) => a.text).join(' '), depth + 1, out);
    return null;
  }
  if (name === 'find') return findExec(args, depth, out);
  if (name === 'source' || name === '.') return scriptFile(args[0], redirects, depth, out);
  if (name === 'trap') return trapAction(args, depth, out);
  if (name === 'git' && gitAlias(args)) throw new Unreadable('git -c alias.… renames a git command');
  const w = WRAPPERS[name];
  return w ? unwrap(w, name, args, redirects, depth, out) : null;
}

function unwrap(
  w: Wrapper,
  name: string,
  args: Word[],
  redirects: Redirect[],
  depth: number,
  out: ShellReading,
): Word[] | null {
  const { seen, rest } = readOptions(w, args, name);
  if (w.noCommand?.some((o) => seen.has(o))) return null;
  let cmd = rest.slice(w.leading ?? 0);
  if (w.assignments) while (cmd.length && isAssignment(cmd[0]!)) cmd = cmd.slice(1);
  if (!cmd.length) {
    if (w.shellWithout?.some((o) => seen.has(o))) return stdinScript(redirects, depth, out);
    if (!w.defaultCommand) return null;
    cmd = [{ text: w.defaultCommand, active: '1'.repeat(w.defaultCommand.length), dynamic: false }];
  }
  return w.appendsInput ? [...cmd, { text: '…', active: '0', dynamic: true }] : cmd;
}

/** sh -c 'script', or a shell fed a heredoc: the script read; a shell reading a pipe: unreadable. */
function shellScript(args: Word[], redirects: Redirect[], depth: number, out: ShellReading): null {
  let command = false;
  let stdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const t = args[i]!.text;
    if (args[i]!.dynamic && /^[-+]/.test(t)) throw new Unreadable("a shell's options include a variable");
    if (t === '--' || t === '-') {
      i++;
      break;
    }
    if (t === '--rcfile' || t === '--init-file') i++;
    else if (t.startsWith('--')) continue;
    else if (/^[-+][A-Za-z]+$/.test(t)) {
      if (t[0] === '-' && t.includes('c')) command = true;
      if (t[0] === '-' && t.includes('s')) stdin = true;
      if (/[oO]/.test(t)) i++;
    } else break;
  }
  const operands = args.slice(i);
  if (command) {
    const script = operands[0];
    if (!script) throw new Unreadable('a shell is given -c without a command');
    if (script.dynamic) throw new Unreadable('a shell runs a script that is a variable or a substitution');
    readScript(script.text, depth + 1, out);
    return null;
  }
  return stdin || !operands.length
    ? stdinScript(redirects, depth, out)
    : scriptFile(operands[0], redirects, depth, out);
}

/**
 * A script a shell or `source` runs from a file: its commands are not read (said in the README),
 * except that a file named by a variable or a substitution (<(curl …)) is unreadable, and
 * /dev/stdin is the shell's input.
 */
function scriptFile(file: Word | undefined, redirects: Redirect[], depth: number, out: ShellReading): null {
  if (!file) return null;
  if (file.dynamic) throw new Unreadable(`it runs a script from ${file.text}, which cannot be read`);
  if (file.text === '/dev/stdin' || file.text === '/dev/fd/0') return stdinScript(redirects, depth, out);
  return null;
}

function stdinScript(redirects: Redirect[], depth: number, out: ShellReading): null {
  const input = redirects.filter((r) => r.op.startsWith('<') && r.op !== '<&' && r.op !== '<>').at(-1);
  if (input?.body !== undefined) {
    if (input.op === '<<<' && input.target.dynamic)
      throw new Unreadable('a shell reads a script that is a variable or a substitution');
    readScript(input.body, depth + 1, out);
    return null;
  }
  if (input?.op === '<') return null;
  throw new Unreadable('a shell reads its commands from its input (a pipe)');
}

/** trap 'commands' SIGNAL: the commands run later, in this shell — read as a script. */
function trapAction(args: Word[], depth: number, out: ShellReading): null {
  const at = args.findIndex((a) => !/^-[lp]*$/.test(a.text) || a.text === '-');
  const action = args[at] && args[at]!.text === '--' ? args[at + 1] : args[at];
  if (!action || action.text === '-' || action.text === '') return null;
  if (action.dynamic) throw new Unreadable('trap runs a variable or a substitution');
  readScript(action.text, depth + 1, out);
  return null;
}

/** find … -exec cmd {} \; (and -execdir, -ok, -okdir): each command it runs, `{}` a file it finds. */
function findExec(args: Word[], depth: number, out: ShellReading): null {
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.text)) continue;
    const end = args.findIndex((a, j) => j > i && (a.text === ';' || a.text === '+'));
    if (end < 0) throw new Unreadable(`find's ${args[i]!.text} is not ended by ; or +`);
    const words = args.slice(i + 1, end).map((w) => (w.text.includes('{}') ? { ...w, dynamic: true } : w));
    runChain(words, [], depth, out);
    i = end;
  }
  return null;
}
