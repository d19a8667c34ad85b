import { answerCall } from '../answer-call.js';
import { str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

/** shop reject <id> [feedback…]: the feedback goes back to the agent, or stops a pause. */
export default async function reject(args: Parsed, ctx: Context): Promise<number> {
  const feedback = args.positionals.slice(1).join(' ') || str(args, 'message') || null;
  return answerCall(ctx, args, 'shop reject <id | handle> [feedback…] [--call K] [--by NAME]', 'cli', { verdict: 'rejected', message: feedback });
}
