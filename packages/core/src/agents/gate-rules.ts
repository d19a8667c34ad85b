import { meansPattern } from './command-meaning.js';
import { globMatches, globRegExp } from './gate-glob.js';
import { allowsPath, holdsPath, type GatePlace } from './gate-paths.js';
import { RULE, type GateBlock } from './gate-spec.js';
import { mainArgument } from './gates.js';
import { lex } from './shell/shell-lexer.js';
import { readShellCommand, type ShellReading } from './shell/read-command.js';
import { literal, type Word } from './shell/shell-word.js';

/**
 * Which rule holds a tool call for a person, matching what the call does, not how it is spelled:
 * - `Bash(glob)` holds a command when any command it runs (read by shell/read-command.ts: each
 *   part of a compound, inside sh -c and $( … ), wrappers peeled) matches the glob, or means
 *   what the glob's words name (command-meaning.ts); a command that cannot be read is held by
 *   any rule for Bash, and released by none.
 * - `Write(glob)`, `Edit(glob)`, `MultiEdit(glob)`, `NotebookEdit(glob)` each hold all four file
 *   tools, and a Bash command writing such a file (> >> tee), by the path relative to the workspace.
 * - Any other `Tool(glob)`: the tool by name (in any case), its main argument by the glob.
 */

const FILE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'];
/** Shop's own report (`shop report DONE …`): allowed in every block, or an agent held by `Bash` could never finish. */
const REPORT = /^shop report(?: |$)/;

interface Rule {
  text: string;
  tool: RegExp;
  arg: string | undefined;
  /** It names Bash; it names the file tools (so also files a command writes). */
  bash: boolean;
  file: boolean;
}

interface ToolCall {
  tool: string;
  input: Record<string, unknown>;
}

/** The rule that holds this call (the first block that holds it), or null: the call runs. */
export function holdingRule(blocks: readonly GateBlock[], call: ToolCall, place: GatePlace): string | null {
  const c = new Call(call, place);
  for (const b of blocks) {
    const hold = rules(b.hold);
    const holding = hold.find((r) => c.holds(r));
    if (holding && !c.allowed(rules(b.allow), hold)) {
      return c.reading?.unreadable
        ? `${holding.text} (the command cannot be read: ${c.reading.unreadable})`
        : holding.text;
    }
  }
  return null;
}

/** The rules that read (gate-spec refuses the others before a session starts). */
function rules(texts: readonly string[]): Rule[] {
  return texts.flatMap((text) => {
    const m = RULE.exec(text.trim());
    if (!m) return [];
    const tool = globRegExp(m[1]!, true);
    return [{ text, tool, arg: m[2], bash: tool.test('Bash'), file: FILE_TOOLS.some((t) => tool.test(t)) }];
  });
}

class Call {
  readonly kind: 'bash' | 'file' | 'other';
  readonly reading: ShellReading | null;
  readonly path: string | null;

  constructor(
    private readonly call: ToolCall,
    private readonly place: GatePlace,
  ) {
    const tool = call.tool.toLowerCase();
    this.kind = tool === 'bash' ? 'bash' : FILE_TOOLS.some((t) => t.toLowerCase() === tool) ? 'file' : 'other';
    const command = call.input.command;
    this.reading =
      this.kind === 'bash'
        ? typeof command === 'string'
          ? readShellCommand(command)
          : { parts: [], runs: [], writes: [], unreadable: 'it has no command' }
        : null;
    const path = call.input.file_path ?? call.input.notebook_path;
    this.path = typeof path === 'string' ? path : null;
  }

  holds(r: Rule): boolean {
    const { reading, place } = this;
    if (reading) {
      if ((r.bash || r.file) && reading.unreadable) return true;
      if (r.bash && (r.arg === undefined || bashHolds(r.arg, reading, this.call.input.command as string))) return true;
      return r.file && reading.writes.some((w) => this.writeHeld(r, w));
    }
    if (this.kind === 'file')
      return r.file && (r.arg === undefined || this.path === null || holdsPath(r.arg, this.path, place));
    if (!r.tool.test(this.call.tool)) return false;
    if (r.arg === undefined) return true;
    return this.path !== null ? holdsPath(r.arg, this.path, place) : globMatches(r.arg, mainArgument(this.call.input));
  }

  /** Every part named by an allow rule: each command (a Bash allow), each file written that a hold rule names (a file allow). */
  allowed(allow: Rule[], hold: Rule[]): boolean {
    const { reading, place } = this;
    if (reading) {
      if (reading.unreadable) return false;
      const commands = reading.parts.every(
        (p) =>
          REPORT.test(p) || allow.some((a) => a.bash && (a.arg === undefined || globMatches(patternText(a.arg), p))),
      );
      const files = reading.writes.filter((w) => hold.some((h) => h.file && this.writeHeld(h, w)));
      return (
        commands &&
        files.every((w) =>
          allow.some((a) => a.file && (a.arg === undefined || (!w.dynamic && allowsPath(a.arg, w.text, place)))),
        )
      );
    }
    if (this.kind === 'file')
      return (
        this.path !== null && allow.some((a) => a.file && (a.arg === undefined || allowsPath(a.arg, this.path!, place)))
      );
    return allow.some((a) => {
      if (!a.tool.test(this.call.tool)) return false;
      if (a.arg === undefined) return true;
      return this.path !== null
        ? allowsPath(a.arg, this.path, place)
        : globMatches(a.arg, mainArgument(this.call.input));
    });
  }

  /** A file a command writes, named by a file rule; one whose name is a variable is named by every one. */
  private writeHeld(r: Rule, w: Word): boolean {
    return r.arg === undefined || w.dynamic || holdsPath(r.arg, w.text, this.place);
  }
}

/** A Bash rule's glob holds the command as sent (as Shop always matched it), or any command it runs, by text or by meaning. */
function bashHolds(arg: string, reading: ShellReading, command: string): boolean {
  if (globMatches(arg, command)) return true;
  const pattern = patternWords(arg);
  const text = pattern.map((w) => w.text).join(' ');
  return reading.runs.some((run) => globMatches(text, run.map((w) => w.text).join(' ')) || meansPattern(pattern, run));
}

/** A Bash rule's words, read as the shell reads a command (quotes removed); any other pattern, cut at blanks. */
function patternWords(arg: string): Word[] {
  try {
    const { tokens, nested } = lex(arg);
    if (!nested.length && tokens.every((t) => t.t === 'word')) return tokens.map((t) => (t as { word: Word }).word);
  } catch {
    // Not shell syntax: its blanks are its only structure.
  }
  return arg.split(/\s+/).filter(Boolean).map(literal);
}

const patternText = (arg: string) =>
  patternWords(arg)
    .map((w) => w.text)
    .join(' ');
