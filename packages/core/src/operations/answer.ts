import { buildAnswer, type AnswerFields, type AnswerInput } from '../decisions/build-answer.js';
import { driveRun, type DriveOptions } from '../engine/drive-run.js';
import type { DriveOutcome } from '../engine/outcome.js';
import { liveOwner } from '../engine/ownership.js';
import type { EnginePorts } from '../engine/ports.js';
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
  const answer = await ports.store.recordAnswer({ runId: exec.runId, key: exec.key, ask: exec.ask, ...fields, responder, channel });
  const run = await ports.store.getRun(exec.runId);
  const handedTo = answer.owner && run?.owner?.token === answer.owner.token ? liveOwner(ports, run) : null;
  return { fields, responder, handedTo };
}

/** After an answer: the live owner resumes the run; without one, drive it here. */
export async function resumeAfterAnswer(ports: EnginePorts, runId: number, handedTo: RunOwner | null, opts: DriveOptions): Promise<{ handedTo: RunOwner } | { outcome: DriveOutcome }> {
  if (handedTo) return { handedTo };
  return { outcome: await driveRun(ports, runId, opts) };
}
