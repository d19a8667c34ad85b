import { parseArgs } from 'node:util';
import { capText, quoted } from '@shop/core/text';
import { UsageError } from '@shop/core/errors';
import type { CommandSpec, FlagSpec, Parsed } from './registry.js';
import { suggest } from './suggest.js';

/**
 * A command's argv, checked against its registry entry: every flag known (a near miss is
 * named with the flag meant), and no more positional arguments than it takes.
 */
export function parseCommand(name: string, spec: CommandSpec, argv: string[]): Parsed {
  const flags: Record<string, FlagSpec> = { ...spec.options, help: { type: 'boolean', short: 'h', description: 'show this help' } };
  // parseArgs takes only its own keys, and refuses them undefined.
  const options = Object.fromEntries(Object.entries(flags).map(([k, { type, short, multiple }]) => [k, { type, ...(short ? { short } : {}), ...(multiple ? { multiple } : {}) }]));
  let parsed: Parsed;
  try {
    const { values, positionals } = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
    parsed = { values: values as Parsed['values'], positionals };
  } catch (e) {
    throw new UsageError(parseProblem(name, spec, e as Error & { code?: string }));
  }
  if (!parsed.values.help && parsed.positionals.length > spec.maxArgs) {
    const extra = parsed.positionals.slice(spec.maxArgs);
    const hint = spec.extraHint ? `; ${spec.extraHint(extra.join(' '))}` : '';
    throw new UsageError(`unexpected argument ${quoted(spec.extraHint ? extra.join(' ') : extra[0])} (shop ${name})${hint}; usage: ${spec.usage}`);
  }
  return parsed;
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
  if (ambiguous) return `flag ${ambiguous[1]} needs a value, not a flag (give one starting with "-" as ${ambiguous[1]}=-…) (shop ${name})`;
  return `${capText(first.replace(/\. To specify a positional.*$/, ''))} (shop ${name}); usage: ${spec.usage}`;
}
