import { UsageError } from '@shop/core/errors';
import type { Parsed } from './registry.js';

/** The run id positional, validated. */
export function runIdArg(args: Parsed, usage: string): number {
  const raw = args.positionals[0];
  if (raw === undefined) throw new UsageError(`missing run id; usage: ${usage}`);
  const id = Number(raw);
  if (!Number.isInteger(id) || id <= 0) throw new UsageError(`"${raw}" is not a run id (a positive number, as shown by shop list)`);
  return id;
}

export function str(args: Parsed, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === 'string' ? v : undefined;
}

export const flag = (args: Parsed, name: string): boolean => args.values[name] === true;
