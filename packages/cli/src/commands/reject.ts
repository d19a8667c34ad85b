import { answerCall } from '../answer-call.js';
import { str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';
import { messageFromFile } from '../text-input.js';

/** shop reject <id> [feedback…]: the feedback goes back to the agent, or stops a pause. */
export default async function reject(args: Parsed, ctx: Context): Promise<number> {
  const usage = 'shop reject <id | handle> [feedback… | --message-file F] [--call K] [--by NAME]';
  const typed = args.positionals.slice(1).join(' ') || str(args, 'message');
  const feedback = (await messageFromFile(args, Boolean(typed), usage)) ?? (typed || null);
  return answerCall(ctx, args, usage, 'cli', { verdict: 'rejected', message: feedback });
}
