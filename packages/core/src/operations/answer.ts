import { rmSync } from 'node:fs';
import { buildAnswer, type AnswerFields, type AnswerInput } from '../decisions/build-answer.js';
import { ConflictError } from '../errors.js';
import type { DriveOptions } from '../engine/drive-run.js';
import type { DriveOutcome } from '../engine/outcome.js';
import { liveOwner, storeLiveness } from '../engine/ownership.js';
import { staleHold } from '../engine/session-hold.js';
import type { EnginePorts } from '../engine/ports.js';
import { readReport } from '../signals/read-report.js';
import { wakeOwners } from '../signals/wake.js';
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
export async function recordAnswer(
  ports: EnginePorts,
  exec: Execution,
  input: AnswerInput,
  channel: Channel,
  responder: string,
  opts: { fresh?: boolean } = {},
): Promise<Recorded> {
  const fields = buildAnswer(exec, input);
  // A person in the call's session (shop continue) holds it: refused unless that process is
  // gone. A call just read (`fresh`: the view the answer was picked from) is not read again.
  const current = opts.fresh ? exec : await ports.store.getExecution(exec.runId, exec.key);
  const stale = current ? staleHold(ports, current, 'continue') : null;
  const answer = await ports.store.recordAnswer(
    { runId: exec.runId, key: exec.key, ask: exec.ask, ...fields, responder, channel },
    stale,
  );
  // The owner as it stood when the answer committed (same transaction): no second read of the run.
  const handedTo = answer.owner ? liveOwner(storeLiveness(ports), { owner: answer.owner }) : null;
  if (handedTo) wakeOwners(ports.paths.signalsDir, exec);
  // The answer as recorded (a NUL in it kept as U+FFFD: nul-free.ts), which is what the run is handed.
  const { verdict, status, message, decisions } = answer;
  return { fields: { verdict, status, message, decisions }, responder, handedTo };
}

/**
 * After an answer: the live owner resumes the run; without one, drive it here (and the
 * parents its end wakes: `runId` is the last run driven) — unless a
 * worker took the run meanwhile (between the answer and this claim): then it takes the
 * answer in, as if it had held the run all along. The answer is recorded either way.
 */
export async function resumeAfterAnswer(
  ports: EnginePorts,
  runId: number,
  handedTo: RunOwner | null,
  opts: DriveOptions,
): Promise<{ handedTo: RunOwner } | { outcome: DriveOutcome; runId: number }> {
  if (handedTo) return { handedTo };
  try {
    // Loaded only when this process drives the run itself: an answer handed to a live driver needs no Lua VM.
    const { driveRun } = await import('../engine/drive-run.js');
    const { driveParents } = await import('../engine/drive-parents.js');
    // A child's ask answered: the child driven to its end, then its parent (and theirs) when nobody else drives them.
    return await driveParents(ports, runId, await driveRun(ports, runId, opts), opts);
  } catch (e) {
    if (!(e instanceof ConflictError)) throw e;
    const run = await ports.store.getRun(runId);
    const owner = run ? liveOwner(storeLiveness(ports), run) : null;
    if (owner) return { handedTo: owner };
    throw e;
  }
}

/**
 * Before a person talks to a waiting agent in its own session (`shop continue`, the TUI):
 * whatever lies at its signal path goes — a file written while the call waited may come
 * from any process, and only what the agent reports during this session may answer.
 */
export function clearSessionSignal(exec: Execution): void {
  if (exec.signalPath) rmSync(exec.signalPath, { force: true });
}

export type SessionAnswer =
  | { kind: 'none' }
  | { kind: 'invalid'; problem: string }
  | { kind: 'answered'; status: string; handedTo: RunOwner | null };

/**
 * After that session: the agent's new report becomes the person's answer — a real answer
 * row for the ask they saw (first answer wins; ConflictError if someone answered it
 * meanwhile), responder the person, channel `continue`. Nothing while the agent has not
 * reported anew (or asks again). The report's status and summary (or reason) are taken;
 * nothing else in the file speaks for the person.
 */
export async function takeSessionAnswer(
  ports: EnginePorts,
  exec: Execution,
  responder: string,
): Promise<SessionAnswer> {
  // Its file on this machine, or what `shop report` recorded in the store during the session.
  const read = await readReport(ports.store, exec);
  if (read.kind === 'invalid') return { kind: 'invalid', problem: `${exec.signalPath} ${read.problem}` };
  if (read.kind !== 'ok' || read.signal.status === 'NEEDS_HUMAN') return { kind: 'none' };
  const { status, summary, reason } = read.signal;
  const { handedTo } = await recordAnswer(
    ports,
    exec,
    { status, message: summary ?? reason ?? null },
    'continue',
    responder,
  );
  // Read once and recorded: the file must not be taken for anything later.
  clearSessionSignal(exec);
  return { kind: 'answered', status, handedTo };
}
