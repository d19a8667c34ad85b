import type { Execution } from '../types.js';
import type { EnginePorts } from './ports.js';
import { holdIsLive, sessionHeld } from './session-hold.js';

export interface FreedSession {
  /** The token of a dead shop continue's hold, cleared with the restart (same transaction). */
  staleHold: string | null;
  /** Whether an agent process was ever started on the session: resume it, or start it anew. */
  started: boolean;
}

/**
 * Before anything starts again on a recorded call's session (one process per session, by
 * construction): a person's live shop continue refuses it (SessionHeldError); then, with
 * `endLeftovers`, whatever a gone driver or shop continue left on the session is ended and
 * waited for — its recorded agent, and any process naming the session (one spawned just
 * before its driver died, its pid never recorded: the session was started then).
 */
export async function freeSession(
  ports: EnginePorts,
  runId: number,
  rec: Execution,
  endLeftovers: boolean,
): Promise<FreedSession> {
  let staleHold: string | null = null;
  if (rec.hold?.kind === 'continue') {
    if (holdIsLive(ports, rec.hold)) throw sessionHeld(runId, rec, rec.hold, ports.self.host, 'resume');
    staleHold = rec.hold.token;
  }
  const found = endLeftovers ? await ports.killOrphan(rec.pid, rec.pidStart, rec.sessionId) : false;
  return { staleHold, started: rec.spawned || found === true };
}
