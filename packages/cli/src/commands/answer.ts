import { answerCall } from '../answer-call.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';
import { messageFromFile } from '../text-input.js';

/** shop answer <id> <text…>: the person's words go back to the waiting agent's own session. */
export default async function answer(args: CommandArgs<'answer'>, ctx: Context): Promise<number> {
  const usage = 'shop answer <id | handle> <text… | --message-file F> [--call K] [--by NAME]';
  const words = args.positionals.slice(1).join(' ');
  return answerCall(ctx, args, usage, 'cli', {
    verdict: 'answer',
    message: (await messageFromFile(args.values['message-file'], words !== '', usage)) ?? words,
  });
}
