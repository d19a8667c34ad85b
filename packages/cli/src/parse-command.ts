import { parseArgs } from 'node:util';
import { UsageError, capText, quoted } from '@shop/core';
import type { CommandSpec, FlagSpec } from './command-spec.js';
import { commands, type CommandArgs, type CommandName } from './registry.js';
import { suggest } from './suggest.js';

/**
 * A command's argv, checked against its declaration in the table: every flag known (a near miss
 * is named with the flag meant), and no more positional arguments than it takes. What it returns
 * is typed from that same declaration: parseArgs read exactly those flags.
 */
export function parseCommand<N extends CommandName>(name: N, argv: string[]): CommandArgs<N> {
  const spec: CommandSpec = commands[name];
  const { values, positionals } = parseArgv(name, spec, argv);
  if (!values.help && positionals.length > spec.maxArgs) {
    const extra = positionals.slice(spec.maxArgs);
    const hint = spec.extraHint ? `; ${spec.extraHint(extra.join(' '))}` : '';
    throw new UsageError(
      `unexpected argument ${quoted(spec.extraHint ? extra.join(' ') : extra[0])} (shop ${name})${hint}; usage: ${spec.usage}`,
    );
  }
  return { command: name, values: values as CommandArgs<N>['values'], positionals };
}

function parseArgv(
  name: string,
  spec: CommandSpec,
  argv: string[],
): { values: Record<string, unknown>; positionals: string[] } {
  const flags: Record<string, FlagSpec> = {
    ...spec.options,
    help: { type: 'boolean', short: 'h', description: 'show this help' },
  };
  // parseArgs takes only its own keys, and refuses them undefined. A boolean not given reads false.
  const options = Object.fromEntries(
    Object.entries(flags).map(([k, { type, short, multiple, default: given }]) => {
      const fallback = type === 'boolean' ? false : given;
      return [
        k,
        {
          type,
          ...(short ? { short } : {}),
          ...(multiple ? { multiple } : {}),
          ...(fallback !== undefined ? { default: fallback } : {}),
        },
      ];
    }),
  );
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(parseProblem(name, spec, e as Error & { code?: string }));
  }
}

function parseProblem(name: string, spec: CommandSpec, e: Error & { code?: string }): string {
  const first = e.message.split('\n')[0];
  const unknown = /^Unknown option '(-{1,2})([^']*)'/.exec(first);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown) {
    const [, dashes, given] = unknown;
    const flags = Object.keys(spec.options);
    const meant = dashes === '--' ? suggest(given, flags) : undefined;
    // Free text that happens to start with a dash goes after "--".
    const text = spec.maxArgs === Infinity ? `; text starting with "-" goes after --` : '';
    return `unknown flag ${quoted(`${dashes}${given}`)} for shop ${name}${meant ? `; did you mean "--${meant}"?` : ''}${text} (shop ${name} --help lists them)`;
  }
  const missing = /^Option '(?:-\w, )?(--[\w-]+) <value>' argument missing/.exec(first);
  if (missing) return `flag ${missing[1]} needs a value (shop ${name}); usage: ${spec.usage}`;
  const noValue = /^Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(first);
  if (noValue) return `flag ${noValue[1]} takes no value (shop ${name}); usage: ${spec.usage}`;
  const ambiguous = /^Option '(?:-\w, )?(--[\w-]+)' argument is ambiguous/.exec(first);
  if (ambiguous)
    return `flag ${ambiguous[1]} needs a value, not a flag (give one starting with "-" as ${ambiguous[1]}=-…) (shop ${name})`;
  return `${capText(first.replace(/\. To specify a positional.*$/, ''))} (shop ${name}); usage: ${spec.usage}`;
}
