import { existsSync, readFileSync } from 'node:fs';
import { ExitCode, ShopError, UsageError, quoted } from '@shop/core';
import { Context, storeProblem } from './context.js';
import { errorLine } from './error-line.js';
import { commandHelp, globalHelp } from './help.js';
import type { CommandSpec } from './command-spec.js';
import { runCommand } from './handlers.js';
import { parseCommand } from './parse-command.js';
import { commands, type CommandName } from './registry.js';
import { suggest } from './suggest.js';
import { printable } from './style.js';

/** Maps any error to one line on stderr and its exit code; stack traces only with SHOP_DEBUG=1. */
function report(e: unknown, storeFile: string): number {
  const debug = process.env.SHOP_DEBUG === '1';
  // A locked, read-only or full store met after opening (a write, a read): name the file.
  const known = e instanceof ShopError ? e : storeProblem(e, storeFile);
  if (known) {
    const stack = debug ? ((e as Error).stack ?? known.stack) : undefined;
    process.stderr.write(printable(`shop: ${errorLine(known)}\n${stack ? `${stack}\n` : ''}`));
    return known.exitCode;
  }
  const err = e as Error;
  process.stderr.write(
    printable(
      debug
        ? `${err?.stack ?? err}\n`
        : `shop: internal error: ${err?.message ?? err} (set SHOP_DEBUG=1 for details)\n`,
    ),
  );
  return ExitCode.failed;
}

/**
 * "shop 0.1.0", from the CLI's own package.json (the nearest one above this module, bundled or
 * not): @shop/cli in a clone, shop when installed from the packed tarball (scripts/pack.mjs).
 */
function version(): string {
  for (let dir = new URL('.', import.meta.url); dir.pathname !== '/'; dir = new URL('..', dir)) {
    const file = new URL('package.json', dir);
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version: string };
    if (pkg.name === '@shop/cli' || pkg.name === 'shop') return `shop ${pkg.version}`;
  }
  throw new Error('the shop package.json is missing next to the shop binary; reinstall Shop');
}

const isCommand = (name: string): name is CommandName => Object.hasOwn(commands, name);

/** A command by name, or a UsageError suggesting the one meant. */
function lookup(name: string): CommandName {
  if (isCommand(name)) return name;
  if (name.startsWith('-')) throw new UsageError(`unknown flag ${quoted(name)} (shop --help lists commands and flags)`);
  const meant = suggest(name, Object.keys(commands));
  throw new UsageError(
    `unknown command ${quoted(name)}${meant ? `; did you mean "${meant}"?` : ''} (shop --help lists them)`,
  );
}

async function dispatch(name: string | undefined, rest: string[], ctx: Context): Promise<number> {
  if (name === '--version' || name === '-V' || name === 'version') {
    ctx.out(version());
    return ExitCode.ok;
  }
  if (!name || name === '--help' || name === '-h' || (name === 'help' && !rest.length)) {
    ctx.out(globalHelp());
    return ExitCode.ok;
  }
  if (name === 'help') {
    if (rest.length > 1)
      throw new UsageError(`unexpected argument ${quoted(rest[1])} (shop help); usage: shop help [<command>]`);
    ctx.out(commandHelp(commands[lookup(rest[0])]));
    return ExitCode.ok;
  }
  const command = lookup(name);
  const spec: CommandSpec = commands[command];
  const args = parseCommand(command, rest);
  if (args.values.help) {
    ctx.out(commandHelp(spec));
    return ExitCode.ok;
  }
  // Nothing is created outside a project: no .shop/ in a folder that is not one.
  if (spec.needsProject !== false && !ctx.project.found) throw new UsageError('no Shop project here (run shop init)');
  return runCommand(command, args, ctx);
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
  const ctx = new Context(process.cwd(), process.env, (line) => process.stdout.write(`${printable(line)}\n`));
  try {
    code = await dispatch(name, rest, ctx);
  } catch (e) {
    code = report(e, ctx.project.dbFile);
  } finally {
    await ctx.close();
  }
  // Set before waiting for the output to go: should the process end on its own meanwhile, it
  // ends with this code, never 0 (a slow reader of a run's output once turned exit 3 into 0).
  process.exitCode = code;
  await flushed(process.stdout);
  await flushed(process.stderr);
  // Exit explicitly (a watcher or a timer left behind must not keep the process alive), but
  // only once the output is with the OS: process.exit() drops what a pipe has not taken yet.
  process.exit(code);
}

/**
 * Resolves once everything written to `stream` is with the OS. Not by 'drain': that comes only
 * after a write was refused, and a few small writes left behind a slow reader never were.
 */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  if (!stream.writableLength || stream.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => resolve();
    stream.write('', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}
