import { answerCall } from '../answer-call.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';
import { messageFromFile } from '../text-input.js';

/**
 * shop approve <id> [--message M]: the verdict matrix decides (close, or back to the agent).
 * Words given without --message are refused by the registry (an answer is final once
 * recorded: they must not be dropped silently).
 */
export default async function approve(args: CommandArgs<'approve'>, ctx: Context): Promise<number> {
  const usage = 'shop approve <id | handle> [--message M | --message-file F] [--call K] [--by NAME]';
  const typed = args.values.message;
  const message = (await messageFromFile(args.values['message-file'], typed !== undefined, usage)) ?? typed ?? null;
  return answerCall(ctx, args, usage, 'cli', { verdict: 'approved', message });
}
