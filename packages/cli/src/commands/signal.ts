import {
  AGENT_FILE_CAP,
  ConflictError,
  UsageError,
  capName,
  nestingDepth,
  parseAahResponse,
  parseAskRef,
  quoted,
  readCappedFile,
  responseRequestId,
} from '@shop/core';
import { answerCall } from '../answer-call.js';
import type { Context } from '../context.js';
import type { CommandArgs } from '../registry.js';

const ANSWERS_MAX_DEPTH = 100;

const USAGE =
  'shop signal <id | handle> --status S | --answers JSON | --answers-file F | --response-file F [--message M] [--call K] [--by NAME]';

/** shop signal: a scripted answer — a status, or structured answers — then the run resumes here. */
export default async function signal(args: CommandArgs<'signal'>, ctx: Context): Promise<number> {
  const status = args.values.status;
  const sources = [status, args.values.answers, args.values['answers-file'], args.values['response-file']].filter(
    (given) => given !== undefined,
  );
  if (sources.length !== 1)
    throw new UsageError(`give exactly one of --status, --answers, --answers-file, --response-file; usage: ${USAGE}`);
  if (status !== undefined && !/^[A-Z][A-Z0-9_]*$/.test(status)) {
    throw new UsageError(`--status ${quoted(status)} must be an UPPER_CASE word such as CONTINUE, STOP or DONE`);
  }
  const message = args.values.message ?? null;
  const responseFile = args.values['response-file'];
  if (responseFile) {
    const json = readJson(readFileArg(responseFile, '--response-file'), '--response-file');
    // A response to an ask someone already answered: the first answer won, name it.
    const asked = responseRequestId(json);
    const ref = parseAskRef(args.positionals[0] ?? '');
    const first = asked && ref ? await (await ctx.ops()).answeredRequest(ref.runId, asked) : null;
    if (first) throw new ConflictError(first);
    return answerCall(ctx, args, USAGE, 'signal', (exec) => {
      const r = parseAahResponse(json, exec);
      return { answers: r.answers, message: message ?? r.summary, by: r.responder };
    });
  }
  const answersText =
    args.values.answers ??
    (args.values['answers-file'] ? readFileArg(args.values['answers-file'], '--answers-file') : undefined);
  if (answersText !== undefined)
    return answerCall(ctx, args, USAGE, 'signal', {
      answers: readJson(answersText, args.values.answers === undefined ? '--answers-file' : '--answers'),
      message,
    });
  return answerCall(ctx, args, USAGE, 'signal', { status, message });
}

function readFileArg(file: string, flag: string): string {
  let read;
  try {
    read = readCappedFile(file);
  } catch {
    throw new UsageError(`${flag} ${quoted(file)}: cannot read the file`);
  }
  if ('tooBig' in read)
    throw new UsageError(`${flag} ${quoted(file)} is larger than ${capName(AGENT_FILE_CAP)}; answers are short`);
  return read.text;
}

function readJson(text: string, flag: string): unknown {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${flag} is not valid JSON (${(e as Error).message.split('\n')[0]})`);
  }
  // Deeper than any answer, and deep enough to overflow whatever walks it next.
  if (nestingDepth(json, ANSWERS_MAX_DEPTH) > ANSWERS_MAX_DEPTH)
    throw new UsageError(`${flag} is nested more than ${ANSWERS_MAX_DEPTH} levels deep`);
  return json;
}
