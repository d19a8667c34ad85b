import { Unreadable, type Word } from './shell-word.js';

/**
 * The commands that run another command (`sudo -u root git push`, `timeout 5s rm -rf x`): what
 * their options are, so the command they run is found after them. An option not listed here
 * makes the command unreadable (whether it takes a value decides where the command starts):
 * env -S, which splits a string into a command line, is one.
 */
interface OptionSpec {
  /** Short options that take a value: the rest of their cluster, or the next word. */
  shortValued?: string;
  shortFlags?: string;
  /** Short options whose value is optional and only attached (xargs -i{}). */
  shortOptional?: string;
  longValued?: string[];
  longFlags?: string[];
  /** Long options whose value is optional and only given with `=`. */
  longOptional?: string[];
  /** `-10` is an option (nice). */
  numeric?: boolean;
  /** A lone `-` is an option (env - is env -i). */
  dashOption?: boolean;
}

export interface Wrapper extends OptionSpec {
  /** Words between its options and the command (timeout's duration). */
  leading?: number;
  /** NAME=value words before the command are its environment (env). */
  assignments?: boolean;
  /** Options after which it runs no command of its own (command -v, sudo -l). */
  noCommand?: string[];
  /** Options after which, with no command, it is a shell reading its input (sudo -s). */
  shellWithout?: string[];
  /** It appends words from its input to the command (xargs): words that cannot be known here. */
  appendsInput?: boolean;
  /** The command it runs when given none. */
  defaultCommand?: string;
}

export const WRAPPERS: Record<string, Wrapper> = {
  env: {
    shortFlags: 'i0v',
    shortValued: 'uCP',
    longFlags: ['ignore-environment', 'null', 'debug', 'list-signal-handling'],
    longValued: ['unset', 'chdir'],
    longOptional: ['default-signal', 'ignore-signal', 'block-signal'],
    assignments: true,
    dashOption: true,
  },
  command: { shortFlags: 'pvV', noCommand: ['v', 'V'] },
  builtin: {},
  busybox: {},
  exec: { shortFlags: 'cl', shortValued: 'a' },
  nice: { shortValued: 'n', longValued: ['adjustment'], numeric: true },
  nohup: {},
  time: {
    shortFlags: 'pvaq',
    shortValued: 'fo',
    longValued: ['format', 'output'],
    longFlags: ['portability', 'verbose', 'append', 'quiet'],
  },
  timeout: {
    shortValued: 'sk',
    shortFlags: 'v',
    longValued: ['signal', 'kill-after'],
    longFlags: ['preserve-status', 'foreground', 'verbose'],
    leading: 1,
  },
  stdbuf: { shortValued: 'ioe', longValued: ['input', 'output', 'error'] },
  setsid: { shortFlags: 'cfw', longFlags: ['ctty', 'fork', 'wait'] },
  ionice: {
    shortValued: 'cnpPu',
    shortFlags: 't',
    longValued: ['class', 'classdata', 'pid', 'pgid', 'uid'],
    longFlags: ['ignore'],
    noCommand: ['p', 'P', 'u', 'pid', 'pgid', 'uid'],
  },
  sudo: {
    shortValued: 'CDgpRrTtUu',
    shortFlags: 'ABbEeHhiKklNnPSsVv',
    longValued: [
      'close-from',
      'chdir',
      'group',
      'host',
      'prompt',
      'chroot',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'user',
    ],
    longFlags: [
      'askpass',
      'bell',
      'background',
      'edit',
      'set-home',
      'help',
      'login',
      'remove-timestamp',
      'reset-timestamp',
      'list',
      'no-update',
      'non-interactive',
      'preserve-groups',
      'stdin',
      'shell',
      'version',
      'validate',
    ],
    longOptional: ['preserve-env'],
    noCommand: ['e', 'edit', 'l', 'list', 'V', 'version', 'v', 'validate', 'K', 'remove-timestamp', 'h', 'help'],
    shellWithout: ['s', 'shell', 'i', 'login'],
  },
  doas: { shortFlags: 'nsL', shortValued: 'aCu', noCommand: ['C', 'L'], shellWithout: ['s'] },
  xargs: {
    shortFlags: '0prtx',
    shortValued: 'adEILnPs',
    shortOptional: 'eil',
    longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
    longFlags: ['null', 'interactive', 'no-run-if-empty', 'verbose', 'exit', 'show-limits', 'open-tty'],
    longOptional: ['eof', 'replace', 'max-lines'],
    appendsInput: true,
    defaultCommand: 'echo',
  },
};

/** The shells whose `-c script` (or heredoc on their input) is read as a script. */
export const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'yash', 'posh']);

/** A wrapper's options read off the front of its arguments: which it saw (by name) and the words after them. */
export function readOptions(spec: OptionSpec, args: Word[], name: string): { seen: Set<string>; rest: Word[] } {
  const seen = new Set<string>();
  let i = 0;
  const unknown = (opt: string) => new Unreadable(`${name}'s option ${opt} is not one Shop knows`);
  for (; i < args.length; i++) {
    const w = args[i]!;
    const t = w.text;
    if (w.dynamic && t.startsWith('-')) throw new Unreadable(`${name}'s options include a variable`);
    if (t === '--') return { seen, rest: args.slice(i + 1) };
    if (t.startsWith('--')) {
      const [given, value] = [t.slice(2).split('=')[0]!, t.includes('=')];
      const long = resolveLong(spec, given, unknown(t));
      seen.add(long);
      if (spec.longValued?.includes(long) && !value) i++;
      continue;
    }
    if ((spec.numeric && /^-\d+$/.test(t)) || (spec.dashOption && t === '-')) continue;
    if (!t.startsWith('-') || t === '-') break;
    for (let j = 1; j < t.length; j++) {
      const ch = t[j]!;
      seen.add(ch);
      if (spec.shortValued?.includes(ch)) {
        if (j === t.length - 1) i++;
        break;
      }
      if (spec.shortOptional?.includes(ch)) break;
      if (!spec.shortFlags?.includes(ch)) throw unknown(`-${ch}`);
    }
  }
  return { seen, rest: args.slice(i) };
}

/** A long option by its full name: GNU tools take any unambiguous prefix. */
function resolveLong(spec: OptionSpec, given: string, unknown: Unreadable): string {
  const all = [...(spec.longValued ?? []), ...(spec.longFlags ?? []), ...(spec.longOptional ?? [])];
  if (all.includes(given)) return given;
  const matches = all.filter((o) => o.startsWith(given));
  if (matches.length !== 1 || !given) throw unknown;
  return matches[0]!;
}
