import { readFileSync } from 'node:fs';
import { quoted } from '@shop/core/text';
import { parseAahResponse, responseRequestId } from '@shop/core/decisions/aah';
import { requestId } from '@shop/core/decisions/call-decisions';
import { ConflictError, UsageError } from '@shop/core/errors';
import { alreadyAnswered } from '@shop/core/store/sqlite-store';
import { parseAskRef } from '@shop/core/decisions/ask-handle';
import { answerCall } from '../answer-call.js';
import { str } from '../args.js';
import type { Context } from '../context.js';
import type { Parsed } from '../registry.js';

const USAGE = 'shop signal <id | handle> --status S | --answers JSON | --answers-file F | --response-file F [--message M] [--call K] [--by NAME]';

/** shop signal: a scripted answer — a status, or structured answers — then the run resumes here. */
export default async function signal(args: Parsed, ctx: Context): Promise<number> {
  const status = str(args, 'status');
  const sources = ['status', 'answers', 'answers-file', 'response-file'].filter((k) => str(args, k) !== undefined);
  if (sources.length !== 1) throw new UsageError(`give exactly one of --status, --answers, --answers-file, --response-file; usage: ${USAGE}`);
  if (status !== undefined && !/^[A-Z][A-Z0-9_]*$/.test(status)) {
    throw new UsageError(`--status ${quoted(status)} must be an UPPER_CASE word such as CONTINUE, STOP or DONE`);
  }
  const message = str(args, 'message') ?? null;
  const responseFile = str(args, 'response-file');
  if (responseFile) {
    const json = readJson(readFileArg(responseFile, '--response-file'), '--response-file');
    // A response to an ask someone already answered: the first answer won, name it.
    const asked = responseRequestId(json);
    const ref = parseAskRef(args.positionals[0] ?? '');
    const first = asked && ref ? (await (await ctx.store()).listAnswers(ref.runId)).find((a) => requestId(a) === asked) : undefined;
    if (first) throw new ConflictError(alreadyAnswered(first));
    return answerCall(ctx, args, USAGE, 'signal', (exec) => {
      const r = parseAahResponse(json, exec);
      return { answers: r.answers, message: message ?? r.summary, by: r.responder };
    });
  }
  const answersText = str(args, 'answers') ?? (str(args, 'answers-file') ? readFileArg(str(args, 'answers-file')!, '--answers-file') : undefined);
  if (answersText !== undefined) return answerCall(ctx, args, USAGE, 'signal', { answers: readJson(answersText, '--answers'), message });
  return answerCall(ctx, args, USAGE, 'signal', { status, message });
}

function readFileArg(file: string, flag: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    throw new UsageError(`${flag} ${quoted(file)}: cannot read the file`);
  }
}

function readJson(text: string, flag: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag} is not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
}
