import { UsageError } from '@shop/core/errors';
import { answerCall } from '../answer-call.js';
import { str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

/** shop approve <id> [--message M]: the verdict matrix decides (close, or back to the agent). */
export default async function approve(args: Parsed, ctx: Context): Promise<number> {
  const usage = 'shop approve <id> [--message M] [--call K] [--by NAME]';
  // An answer is final once recorded: words given without --message must not be dropped silently.
  const extra = args.positionals.slice(1).join(' ');
  if (extra) throw new UsageError(`unexpected "${extra}": give your words with --message "${extra}"; usage: ${usage}`);
  return answerCall(ctx, args, usage, 'cli', { verdict: 'approved', message: str(args, 'message') ?? null });
}
