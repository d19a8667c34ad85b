import { handleOf } from '../decisions/ask-handle.js';
import type { AnswerFields, AnswerInput } from '../decisions/build-answer.js';
import type { EnginePorts } from '../engine/ports.js';
import { storeLiveness } from '../engine/ownership.js';
import type { Channel, Execution, RunOwner } from '../types.js';
import { recordAnswer } from './answer.js';
import { PERSON, refuseAgent, type Caller } from './answer-rules.js';
import { handleRef, pickAskRef, type AskRef, type PickedAsk } from './pick-ask.js';
import type { AnsweredJson } from './shapes.js';

export type { AskRef, PickedAsk };

/** The channels a person answers on (an agent never answers; the engine and workers do not either). */
export type PersonChannel = Exclude<Channel, 'agent' | 'engine' | 'worker'>;

export interface AnswerRequest {
  input: AnswerInput;
  channel: PersonChannel;
  responder: string;
}

export interface AnswerByHandle extends AnswerRequest {
  /** The ask's handle (`33.4`, `33.4.2`): the answer lands on exactly that ask or is refused. */
  handle: string;
}

export interface AnsweredAsk {
  exec: Execution;
  fields: AnswerFields;
  answered: AnsweredJson;
  /** The live driver that takes the answer in itself; null: the caller resumes the run (drives it, or has it driven). */
  handedTo: RunOwner | null;
}

/**
 * Answers a picked ask: refused for an agent (Caller), checked against the ask (nothing is
 * recorded if it does not fit), recorded — first answer wins — with who owned the run then.
 */
export async function answerPicked(
  ports: EnginePorts,
  caller: Caller,
  exec: Execution,
  req: AnswerRequest,
  what = 'answering',
): Promise<AnsweredAsk> {
  refuseAgent(caller, what);
  const { fields, handedTo } = await recordAnswer(ports, exec, req.input, req.channel, req.responder, { fresh: true });
  const answered: AnsweredJson = {
    handle: handleOf(exec),
    key: exec.key,
    ask: exec.ask,
    question: exec.waitingFor,
    verdict: fields.verdict,
    status: fields.status,
    message: fields.message,
    decisions: fields.decisions,
    responder: req.responder,
    channel: req.channel,
  };
  return { exec, fields, answered, handedTo };
}

/**
 * Answers the ask a handle names — the one way any front end answers by handle. Refused
 * (nothing recorded): a handle that names no ask (NotFoundError), an ask answered already or
 * closed (ConflictError naming who answered and what is open now), an answer that does not
 * fit the ask (UsageError), a person in the call's session (SessionHeldError), an agent.
 */
export async function answerAsk(
  ports: EnginePorts,
  req: AnswerByHandle,
  caller: Caller = PERSON,
): Promise<AnsweredAsk> {
  refuseAgent(caller, 'answering');
  const { exec } = await pickAskRef(ports.store, storeLiveness(ports), handleRef(req.handle), 'answer');
  return answerPicked(ports, caller, exec, req);
}
