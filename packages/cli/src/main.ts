import { parseArgs } from 'node:util';
import { ExitCode, ShopError, UsageError } from '@shop/core/errors';
import { Context } from './context.js';
import { commands, type CommandSpec, type Parsed } from './registry.js';

function help(): string {
  const lines = Object.values(commands).flatMap((c) => [`  ${c.usage}`, `      ${c.summary}`]);
  return ['shop — durable Lua workflows for AI coding agents, with people in the loop', '', 'Commands:', ...lines, '',
    'Exit codes: 0 ok · 1 failed · 2 bad input · 3 waiting for a person · 4 stuck · 5 not found · 6 conflict',
    'Set SHOP_DEBUG=1 for stack traces.'].join('\n');
}

function parse(name: string, spec: CommandSpec, argv: string[]): Parsed {
  try {
    const { values, positionals } = parseArgs({ args: argv, options: { ...spec.options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
    return { values: values as Parsed['values'], positionals };
  } catch (e) {
    const msg = (e as Error).message.split('\n')[0].replace(/\. To specify a positional.*$/, '');
    throw new UsageError(`${msg} (shop ${name}); usage: ${spec.usage}`);
  }
}

/** Maps any error to one line on stderr and its exit code; stack traces only with SHOP_DEBUG=1. */
function report(e: unknown): number {
  const debug = process.env.SHOP_DEBUG === '1';
  if (e instanceof ShopError) {
    process.stderr.write(`shop: ${e.message}\n${debug && e.stack ? `${e.stack}\n` : ''}`);
    return e.exitCode;
  }
  const err = e as Error;
  process.stderr.write(debug ? `${err?.stack ?? err}\n` : `shop: internal error: ${err?.message ?? err} (set SHOP_DEBUG=1 for details)\n`);
  return ExitCode.failed;
}

export async function main(argv: string[]): Promise<void> {
  const [given, ...rest] = argv;
  // Bare `shop` on a terminal opens the run browser; on a pipe it prints the help.
  const name = given ?? (process.stdin.isTTY && process.stdout.isTTY ? 'tui' : undefined);
  let code: number;
  // A reader that goes away (shop run … | head -1) must not kill the command mid-way with a
  // stack trace, leaving a run interrupted: the output is lost, the command goes on.
  process.stdout.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
  });
  const ctx = new Context(process.cwd(), process.env, (line) => process.stdout.write(`${line}\n`));
  try {
    if (!name || name === 'help' || name === '--help' || name === '-h') {
      ctx.out(help());
      code = ExitCode.ok;
    } else {
      const spec = commands[name];
      if (!spec) throw new UsageError(`unknown command "${name}"; run shop --help for the list`);
      const args = parse(name, spec, rest);
      if (args.values.help) {
        ctx.out(`usage: ${spec.usage}\n${spec.summary}${spec.details ? `\n\n${spec.details}` : ''}`);
        code = ExitCode.ok;
      } else {
        const command = await spec.load();
        code = await command.default(args, ctx);
      }
    }
  } catch (e) {
    code = report(e);
  } finally {
    ctx.close();
  }
  await flushed(process.stdout);
  await flushed(process.stderr);
  // Exit explicitly (a watcher or a timer left behind must not keep the process alive), but
  // only once the output is with the OS: process.exit() drops what a pipe has not taken yet.
  process.exit(code);
}

function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (!stream.writableLength || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => resolve();
    stream.once('drain', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}
