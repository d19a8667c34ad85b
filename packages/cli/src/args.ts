import { UsageError, parseAskRef, quoted, runIdOf as plainRunId } from '@shop/core';
import type { Argv } from './command-spec.js';

/** The run id positional, validated. */
export function runIdArg(args: Argv<unknown>, usage: string): number {
  const raw = args.positionals[0];
  if (raw === undefined) throw new UsageError(`missing run id; usage: ${usage}`);
  return runIdOf(raw, args.command);
}

/** A run id as typed, validated; `usage` is added to the error for commands that take several. */
export function runIdOf(raw: string, command?: string, usage?: string): number {
  // Plain positive decimal only: Number() would read "0x3" as 3 and "1e3" as 1000.
  const id = plainRunId(raw);
  const handle = id === null ? parseAskRef(raw) : null;
  if (handle?.key && command) {
    // Copied from shop inbox or a hint: say which run it names rather than that it is none.
    throw new UsageError(
      `${quoted(raw)} is an ask's handle (run ${handle.runId}, call ${handle.key}); shop ${command} takes the run id: shop ${command} ${handle.runId}`,
    );
  }
  if (id === null) {
    throw new UsageError(
      `${quoted(raw)} is not a run id (a positive number, as shown by shop list)${usage ? `; usage: ${usage}` : ''}`,
    );
  }
  return id;
}

/** How many rows a terminal shows without --limit (DESIGN.md: 50 on a terminal, all with --json or on a pipe). */
const TERMINAL_LIMIT = 50;

/** --limit N as given (0: all), else 50 for a person at a terminal and all for --json or a pipe. */
export function limitArg(given: { readonly limit?: string; readonly json?: boolean }, rows: string): number {
  const raw = given.limit;
  if (raw === undefined) return given.json || !process.stdout.isTTY ? 0 : TERMINAL_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new UsageError(`--limit ${quoted(raw)} must be a whole number of ${rows} (0: all)`);
  return n;
}

/** A priority as typed (`what`: how the message names it): a whole number, higher first. */
export function priorityArg(raw: string, what = '--priority'): number {
  if (!/^-?\d{1,7}$/.test(raw.trim()))
    throw new UsageError(`${what} ${quoted(raw)} must be a whole number (higher first)`);
  return Number(raw);
}
