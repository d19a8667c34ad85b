import { answerCall } from '../answer-call.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

/** shop answer <id> <text…>: the person's words go back to the waiting agent's own session. */
export default async function answer(args: Parsed, ctx: Context): Promise<number> {
  return answerCall(ctx, args, 'shop answer <id | handle> <text…> [--call K] [--by NAME]', 'cli', { verdict: 'answer', message: args.positionals.slice(1).join(' ') });
}
