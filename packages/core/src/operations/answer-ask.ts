import { handleOf, parseAskRef } from '../decisions/ask-handle.js';
import type { AnswerFields, AnswerInput } from '../decisions/build-answer.js';
import type { EnginePorts } from '../engine/ports.js';
import { UsageError } from '../errors.js';
import type { Store } from '../store/store.js';
import { quoted } from '../text.js';
import type { Channel, Execution, RunOwner } from '../types.js';
import { recordAnswer } from './answer.js';
import { refuseAgent, type Caller } from './answer-rules.js';
import { onlyAsk, pickAsk } from './pick-ask.js';
import { loadAskView, type AskView } from './run-view.js';
import type { AnsweredJson } from './shapes.js';

/** The channels a person answers on (an agent never answers; the engine and workers do not either). */
export type PersonChannel = Exclude<Channel, 'agent' | 'engine' | 'worker'>;

/**
 * Which ask: a run, and a call with its ask number (`key` null: the run's one open ask; `ask`
 * null: the call's current ask — a front end that shows the call, and answers what it shows).
 */
export interface AskRef {
  runId: number;
  key: string | null;
  ask: number | null;
}

/** The ask picked, with the view it was picked from (read once, passed along). */
export interface PickedAsk {
  view: AskView;
  exec: Execution;
  /** Named by bare run id: a front end may confirm it with the person first. */
  bare: boolean;
}

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
 * The ask a reference names, from one read of the run and its open asks. A key names exactly
 * one ask (answered already: ConflictError naming who; never the call's newer ask); no key
 * means the run's one open ask (several: UsageError listing their handles).
 */
export async function pickAskRef(store: Store, ref: AskRef, command: string, several?: (view: AskView) => Error): Promise<PickedAsk> {
  const view = await loadAskView(store, ref.runId);
  if (ref.key !== null) {
    const ask = ref.ask ?? view.waitingAll.find((e) => e.key === ref.key)?.ask ?? (await store.getExecution(ref.runId, ref.key))?.ask ?? 1;
    return { view, exec: await pickAsk(store, view, { key: ref.key, ask: Math.max(1, ask) }), bare: false };
  }
  if (several && view.waitingAll.length > 1) throw several(view);
  return { view, exec: await onlyAsk(store, view, command), bare: true };
}

/**
 * Answers a picked ask: refused for an agent (Caller), checked against the ask (nothing is
 * recorded if it does not fit), recorded — first answer wins — with who owned the run then.
 */
export async function answerPicked(ports: EnginePorts, caller: Caller, exec: Execution, req: AnswerRequest, what = 'answering'): Promise<AnsweredAsk> {
  refuseAgent(caller, what);
  const { fields, handedTo } = await recordAnswer(ports, exec, req.input, req.channel, req.responder, { fresh: true });
  const answered: AnsweredJson = {
    handle: handleOf(exec), key: exec.key, ask: exec.ask, question: exec.waitingFor,
    verdict: fields.verdict, status: fields.status, message: fields.message, decisions: fields.decisions, responder: req.responder, channel: req.channel,
  };
  return { exec, fields, answered, handedTo };
}

/**
 * Answers the ask a handle names — the one way any front end answers by handle. Refused
 * (nothing recorded): a handle that names no ask (NotFoundError), an ask answered already or
 * closed (ConflictError naming who answered and what is open now), an answer that does not
 * fit the ask (UsageError), a person in the call's session (SessionHeldError), an agent.
 */
export async function answerAsk(ports: EnginePorts, req: AnswerByHandle, caller: Caller = { agent: null }): Promise<AnsweredAsk> {
  refuseAgent(caller, 'answering');
  const ref = parseAskRef(req.handle);
  if (!ref || ref.key === null) throw new UsageError(`${quoted(req.handle)} is not an ask handle (such as 33.4, as the inbox shows it)`);
  const { exec } = await pickAskRef(ports.store, { runId: ref.runId, key: ref.key, ask: ref.ask ?? 1 }, 'answer');
  return answerPicked(ports, caller, exec, req);
}
