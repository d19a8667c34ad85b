import { buildAnswer, type AnswerFields, type AnswerInput } from '../decisions/build-answer.js';
import { driveRun, type DriveOptions } from '../engine/drive-run.js';
import type { DriveOutcome } from '../engine/outcome.js';
import { liveOwner } from '../engine/ownership.js';
import { staleHold } from '../engine/session-hold.js';
import type { EnginePorts } from '../engine/ports.js';
import { readSignal } from '../signals/signal.js';
import type { Channel, Execution, RunOwner } from '../types.js';

export interface Recorded {
  fields: AnswerFields;
  responder: string;
  /** The live driver that takes the answer in itself, if one holds the run. */
  handedTo: RunOwner | null;
}

/**
 * Checks an answer against the waiting call (nothing is recorded if it is invalid) and
 * records it for the call's current ask — first answer wins. Who owned the run is read in
 * the same transaction, so an owner on its way out cannot strand the answer.
 */
export async function recordAnswer(ports: EnginePorts, exec: Execution, input: AnswerInput, channel: Channel, responder: string): Promise<Recorded> {
  const fields = buildAnswer(exec, input);
  // A person in the call's session (shop continue) holds it: refused unless that process is gone.
  const current = await ports.store.getExecution(exec.runId, exec.key);
  const stale = current ? staleHold(ports, current, 'continue') : null;
  const answer = await ports.store.recordAnswer({ runId: exec.runId, key: exec.key, ask: exec.ask, ...fields, responder, channel }, stale);
  const run = await ports.store.getRun(exec.runId);
  const handedTo = answer.owner && run?.owner?.token === answer.owner.token ? liveOwner(ports, run) : null;
  return { fields, responder, handedTo };
}

/** After an answer: the live owner resumes the run; without one, drive it here. */
export async function resumeAfterAnswer(ports: EnginePorts, runId: number, handedTo: RunOwner | null, opts: DriveOptions): Promise<{ handedTo: RunOwner } | { outcome: DriveOutcome }> {
  if (handedTo) return { handedTo };
  return { outcome: await driveRun(ports, runId, opts) };
}

/**
 * After a person talked to a waiting agent in its own session (`shop continue`): the agent's
 * new signal is the answer. Null while it has not reported anew (or asks again). The trail
 * says who answered and where; a live owner takes the signal in itself.
 */
export async function takeSessionAnswer(ports: EnginePorts, exec: Execution, responder: string): Promise<{ status: string; handedTo: RunOwner | null } | null> {
  const read = exec.signalPath ? readSignal(exec.signalPath) : null;
  if (read?.kind !== 'ok' || read.signal.status === 'NEEDS_HUMAN') return null;
  await ports.store.appendEvent(null, exec.runId, {
    type: 'human_answered', key: exec.key, actor: responder, channel: 'continue',
    data: { ask: exec.ask, via: 'session', session_id: exec.sessionId, status: read.signal.status },
  });
  const run = await ports.store.getRun(exec.runId);
  return { status: read.signal.status, handedTo: run ? liveOwner(ports, run) : null };
}
