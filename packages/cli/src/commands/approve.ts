import { answerCall } from '../answer-call.js';
import { str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

/**
 * shop approve <id> [--message M]: the verdict matrix decides (close, or back to the agent).
 * Words given without --message are refused by the registry (an answer is final once
 * recorded: they must not be dropped silently).
 */
export default async function approve(args: Parsed, ctx: Context): Promise<number> {
  return answerCall(ctx, args, 'shop approve <id | handle> [--message M] [--call K] [--by NAME]', 'cli', { verdict: 'approved', message: str(args, 'message') ?? null });
}
