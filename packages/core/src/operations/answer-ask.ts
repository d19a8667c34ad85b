import { handleOf, parseAskRef } from '../decisions/ask-handle.js';
import type { AnswerInput } from '../decisions/build-answer.js';
import type { EnginePorts } from '../engine/ports.js';
import { UsageError } from '../errors.js';
import { quoted } from '../text.js';
import type { Channel, Execution, RunOwner } from '../types.js';
import { recordAnswer } from './answer.js';
import { pickAsk } from './pick-ask.js';
import { loadRunView } from './run-view.js';
import type { AnsweredJson } from './shapes.js';

export interface AnswerByHandle {
  /** The ask's handle (`33.4`, `33.4.2`): the answer lands on exactly that ask or is refused. */
  handle: string;
  input: AnswerInput;
  /** A person's channel (cli, tui, web, link): agents never answer. */
  channel: Exclude<Channel, 'agent' | 'signal' | 'engine' | 'worker'>;
  responder: string;
}

export interface AnsweredAsk {
  exec: Execution;
  answered: AnsweredJson;
  /** The live driver that takes the answer in itself; null: the caller resumes the run (drives it, or has it driven). */
  handedTo: RunOwner | null;
}

/**
 * Answers the ask a handle names — the one way any front end answers by handle. Refused
 * (nothing recorded): a handle that names no ask (NotFoundError), an ask answered already or
 * closed (ConflictError naming who answered and what is open now), an answer that does not
 * fit the ask (UsageError), a person in the call's session (SessionHeldError).
 */
export async function answerAsk(ports: EnginePorts, req: AnswerByHandle): Promise<AnsweredAsk> {
  const ref = parseAskRef(req.handle);
  if (!ref || ref.key === null) throw new UsageError(`${quoted(req.handle)} is not an ask handle (such as 33.4, as the inbox shows it)`);
  const view = await loadRunView(ports.store, ref.runId, { last: 0 });
  const exec = await pickAsk(ports.store, view, { key: ref.key, ask: ref.ask ?? 1 });
  const { fields, handedTo } = await recordAnswer(ports, exec, req.input, req.channel, req.responder);
  const answered: AnsweredJson = {
    handle: handleOf(exec), key: exec.key, ask: exec.ask, question: exec.waitingFor,
    verdict: fields.verdict, status: fields.status, message: fields.message, decisions: fields.decisions, responder: req.responder, channel: req.channel,
  };
  return { exec, answered, handedTo };
}
