import { ExitCode } from '@shop/core';
import type { CommandSpec, FlagSpec, Options } from './command-spec.js';
import { commands, GROUPS, type CommandName } from './registry.js';

const HELP_FLAG: FlagSpec = { type: 'boolean', short: 'h', description: 'show this help' };
const WIDTH = 100;

/** `shop --help`: the commands by group, one line each, and where to read more. */
export function globalHelp(): string {
  const names = Object.keys(commands) as CommandName[];
  const pad = Math.max(...names.map((n) => n.length)) + 2;
  const groups = Object.entries(GROUPS).flatMap(([group, title]) => [
    '',
    `${title}:`,
    ...names.filter((n) => commands[n].group === group).map((n) => `  ${n.padEnd(pad)}${commands[n].summary}`),
  ]);
  return [
    'shop — durable Lua workflows for AI coding agents, with people in the loop',
    '',
    'Usage:  shop <command> [arguments] [flags]',
    ...groups,
    '',
    'Flags:',
    ...flagLines({
      help: { ...HELP_FLAG, description: 'show help for shop, or for a command' },
      version: { type: 'boolean', short: 'V', description: "print shop's version" },
    }),
    '',
    'shop <command> --help (or shop help <command>) shows its usage and flags.',
    `Exit codes: ${exitCodeLine()}`,
    'Set SHOP_DEBUG=1 for stack traces.',
  ].join('\n');
}

/** What each exit code means, in help's words: typed by core's ExitCode, so a new code cannot go unsaid. */
const EXIT_CODE_WORDS: Record<keyof typeof ExitCode, string> = {
  ok: 'ok',
  failed: 'failed',
  usage: 'bad input',
  waiting: 'waiting for a person',
  stuck: 'stuck',
  notFound: 'not found',
  conflict: 'conflict',
  waitingOn: 'waiting on time, an event or a run',
  interrupted: 'interrupted',
};

export function exitCodeLine(): string {
  return (Object.keys(ExitCode) as (keyof typeof ExitCode)[])
    .map((k) => `${ExitCode[k]} ${EXIT_CODE_WORDS[k]}`)
    .join(' · ');
}

/** `shop <cmd> --help` / `shop help <cmd>`: summary, usage, every flag, details. */
export function commandHelp(spec: CommandSpec): string {
  return [
    spec.summary,
    '',
    'Usage:',
    `  ${spec.usage}`,
    '',
    'Flags:',
    ...flagLines({ ...spec.options, help: HELP_FLAG }),
    ...(spec.details ? ['', spec.details] : []),
  ].join('\n');
}

/** "  -f, --follow      follow …", descriptions aligned and wrapped under themselves. */
function flagLines(options: Options): string[] {
  const heads = Object.entries(options).map(
    ([name, f]) => `${f.short ? `-${f.short}, ` : '    '}--${name}${f.value ? ` ${f.value}` : ''}`,
  );
  const pad = Math.max(...heads.map((h) => h.length)) + 4;
  return Object.values(options).flatMap((f, i) =>
    wrap(f.description, WIDTH - pad).map((line, j) => `  ${(j ? '' : heads[i]).padEnd(pad)}${line}`.trimEnd()),
  );
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  return [...lines, line];
}
