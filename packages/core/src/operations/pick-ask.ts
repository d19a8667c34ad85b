import { askHandle, handleOf, parseAskRef } from '../decisions/ask-handle.js';
import { ConflictError, NotFoundError, UsageError } from '../errors.js';
import { alreadyAnswered, alreadyAnsweredEvent } from '../store/answered-line.js';
import type { Store } from '../store/store.js';
import type { Execution } from '../types.js';
import type { Liveness } from '../run-status.js';
import { requestId } from '../decisions/call-decisions.js';
import { quoted } from '../text.js';
import { loadAskView, runState, type AskView } from './run-view.js';

/** "open now: 33.5 (deployer asks: Deploy to prod?)", or that nothing is open and the run's state. */
export function openNow(view: AskView): string {
  const { run, waitingAll } = view;
  if (!waitingAll.length) return `nothing is open now (run ${run.id} is ${runState(view)})`;
  return `open now: ${waitingAll.map((e) => `${handleOf(e)} (${askerLabel(e)}: ${e.waitingFor ?? ''})`).join('; ')}`;
}

const askerLabel = (e: Execution) => (e.kind === 'pause' ? 'the workflow asks' : `${e.agent} asks`);

/**
 * The waiting call an answer by handle goes to: exactly the ask the handle names. An ask
 * answered already (first answer wins) or closed otherwise is a conflict naming who answered
 * it, when, and what is open now; it never moves on to a newer ask of the same call.
 */
export async function pickAsk(store: Store, view: AskView, ref: { key: string; ask: number }): Promise<Execution> {
  const { run, waitingAll } = view;
  const handle = askHandle(run.id, ref.key, ref.ask);
  const open = waitingAll.find((e) => e.key === ref.key);
  if (open && Math.max(1, open.ask) === ref.ask) return open;
  const answer = await store.getAnswer(run.id, ref.key, ref.ask);
  if (answer) throw new ConflictError(`${alreadyAnswered(answer)}; ${openNow(view)}`);
  // Answered in the agent's own session (shop continue): on the trail only.
  const session = (await store.listEvents(run.id)).find(
    (e) => e.type === 'human_answered' && e.key === ref.key && Number(e.data?.ask ?? 1) === ref.ask,
  );
  if (session) throw new ConflictError(`${alreadyAnsweredEvent(session)}; ${openNow(view)}`);
  const exec = open ?? (await store.getExecution(run.id, ref.key));
  if (!exec || exec.kind === 'sh' || exec.ask < ref.ask) {
    const asked = exec
      ? `call ${ref.key} has asked ${exec.ask} ${exec.ask === 1 ? 'time' : 'times'}`
      : `run ${run.id} has no call ${ref.key}`;
    throw new NotFoundError(`no ask ${handle}: ${asked}; ${openNow(view)}`);
  }
  throw new ConflictError(
    `${handle} is no longer open (call ${ref.key} is ${exec.status === 'waiting_human' ? 'waiting again' : exec.status}, closed without a person's answer); ${openNow(view)}`,
  );
}

/** A bare run id: its one open ask; several open are listed by handle (exit 2), none is a conflict naming the last answer. */
export async function onlyAsk(store: Store, view: AskView, command: string): Promise<Execution> {
  const { run, waitingAll } = view;
  if (!waitingAll.length) {
    const last = (await store.listEvents(run.id)).filter((e) => e.type === 'human_answered').at(-1);
    const state = `it is ${runState(view)}`;
    throw new ConflictError(
      last ? `${alreadyAnsweredEvent(last)}; ${state}` : `run ${run.id} is not waiting for a person (${state})`,
    );
  }
  if (waitingAll.length > 1) {
    throw new UsageError(
      `run ${run.id} waits on several asks; ${openNow(view)}; answer one by its handle, e.g. shop ${command} ${handleOf(waitingAll[0])}`,
    );
  }
  return waitingAll[0];
}

/** Who answered the AAH request `request` of run `runId` already (one line naming them), or null: a response file is refused naming the first answer. */
export async function answeredRequest(store: Store, runId: number, request: string): Promise<string | null> {
  const first = (await store.listAnswers(runId)).find((a) => requestId(a) === request);
  return first ? alreadyAnswered(first) : null;
}

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

/**
 * The ask a reference names, from one read of the run and its open asks. A key names exactly
 * one ask (answered already: ConflictError naming who; never the call's newer ask); no key
 * means the run's one open ask (several: UsageError listing their handles).
 */
export async function pickAskRef(
  store: Store,
  liveness: Liveness,
  ref: AskRef,
  command: string,
  several?: (view: AskView) => Error,
): Promise<PickedAsk> {
  const view = await loadAskView(store, liveness, ref.runId);
  if (ref.key !== null) {
    const ask =
      ref.ask ??
      view.waitingAll.find((e) => e.key === ref.key)?.ask ??
      (await store.getExecution(ref.runId, ref.key))?.ask ??
      1;
    return { view, exec: await pickAsk(store, view, { key: ref.key, ask: Math.max(1, ask) }), bare: false };
  }
  if (several && view.waitingAll.length > 1) throw several(view);
  return { view, exec: await onlyAsk(store, view, command), bare: true };
}

/** Handles are short ("33.4/2/1.2"); anything longer is not one. */
const MAX_HANDLE = 200;

/** Exactly the ask a handle names (its first ask when it names none); UsageError for anything else, a bare run id too. */
export function handleRef(handle: string): AskRef {
  const ref = handle.length <= MAX_HANDLE ? parseAskRef(handle) : null;
  if (!ref || ref.key === null)
    throw new UsageError(`${quoted(handle, 60)} is not an ask handle (such as 33.4, as the inbox shows it)`);
  return { runId: ref.runId, key: ref.key, ask: ref.ask ?? 1 };
}
