import { answerCall } from '../answer-call.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';
import { messageFromFile } from '../text-input.js';

/** shop reject <id> [feedback…]: the feedback goes back to the agent, or stops a pause. */
export default async function reject(args: CommandArgs<'reject'>, ctx: Context): Promise<number> {
  const usage = 'shop reject <id | handle> [feedback… | --message-file F] [--call K] [--by NAME]';
  const typed = args.positionals.slice(1).join(' ') || args.values.message;
  const feedback = (await messageFromFile(args.values['message-file'], Boolean(typed), usage)) ?? (typed || null);
  return answerCall(ctx, args, usage, 'cli', { verdict: 'rejected', message: feedback });
}
