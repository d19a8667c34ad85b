import type { Context } from './context.js';

/**
 * The types of the CLI's command table (registry.ts). This module imports nothing from the
 * commands nor the table, so a command may import its types without an import circle.
 */

/** A flag: how parseArgs reads it, and what `shop <cmd> --help` says of it. */
export interface FlagSpec {
  type: 'boolean' | 'string';
  short?: string;
  multiple?: boolean;
  /** The value's placeholder in help ("--status S"). */
  value?: string;
  /** What a string flag is when not given (its description says so); the value is then never undefined. */
  default?: string;
  description: string;
}

export type Options = Readonly<Record<string, FlagSpec>>;

/** What one flag reads as: whether a boolean was given, the text(s) of a string. */
type ValueOf<F extends FlagSpec> = F['type'] extends 'boolean'
  ? boolean
  : F extends { multiple: true }
    ? string[]
    : string;
/** The flags always there: a boolean (false when not given) and a string with a default. */
type AlwaysSet<O extends Options> = {
  [K in keyof O]: O[K] extends { type: 'boolean' } | { default: string } ? K : never;
}[keyof O];

/**
 * A command's flags as given, typed from its declaration: `--by NAME` is `by?: string`, `--json`
 * is `json: boolean`, a string flag with a default is always there; `--help` every command has.
 */
type OptionValues<O extends Options> = { readonly [K in Exclude<keyof O, AlwaysSet<O>>]?: ValueOf<O[K]> } & {
  readonly [K in AlwaysSet<O>]: ValueOf<O[K]>;
} & { readonly help: boolean };

/**
 * A command's argv once checked: its positionals and its flags' values. A helper several commands
 * share takes the flags it reads (`Argv<{ json?: boolean }>`); a command gets its own, typed from
 * its declaration (`CommandArgs<'list'>`, registry.ts).
 */
export interface Argv<V> {
  /** The command's name in the table (said in errors; never read back out of its usage line). */
  readonly command: string;
  readonly values: V;
  readonly positionals: string[];
}

/** A command's argv checked against its declaration `O`. */
export type Parsed<O extends Options> = Argv<OptionValues<O>>;

export type Group = 'runs' | 'answer' | 'tools' | 'agent';

/** One command as the table declares it: its help, what it takes, and its flags (declared once, typed from that). */
export interface CommandSpec {
  usage: string;
  summary: string;
  /** More for `shop <cmd> --help`: what happens after, exit codes. */
  details?: string;
  /** Where the global help lists it. */
  group: Group;
  /** How many positional arguments it takes at most (Infinity: free text, or a list of ids). */
  maxArgs: number;
  /** Said after "unexpected argument …" (e.g. where those words belong instead). */
  extraHint?: (extra: string) => string;
  /** False for the commands that work outside a Shop project. */
  needsProject?: boolean;
  options: Options;
}

/** What a command module exports as its default: it gets its own flags, typed. */
export type CommandFn<O extends Options> = (args: Parsed<O>, ctx: Context) => Promise<number>;
