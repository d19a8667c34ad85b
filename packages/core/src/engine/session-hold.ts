import { SessionHeldError } from '../errors.js';
import type { Liveness } from '../run-status.js';
import { localTime } from '../local-time.js';
import type { Execution, SessionHold } from '../types.js';

/**
 * Whether a session hold still stands. A person's `shop continue` holds while its process
 * lives (on this host: the same pid and start time; on another host nothing can tell, so it
 * stands). An agent hold stands while its agent process does — its driver may be gone.
 */
export function holdIsLive(liveness: Pick<Liveness, 'self' | 'processAlive'>, hold: SessionHold | null): boolean {
  if (!hold) return false;
  if (hold.host !== liveness.self.host) return true;
  if (hold.pid == null) return hold.kind === 'agent';
  return liveness.processAlive(hold.pid, hold.pidStart);
}

/** The token of a hold judged dead (to be cleared in the same transaction that checks it), or null. */
export function staleHold(
  liveness: Pick<Liveness, 'self' | 'processAlive'>,
  exec: Execution,
  kind: SessionHold['kind'],
): string | null {
  return exec.hold?.kind === kind && !holdIsLive(liveness, exec.hold) ? exec.hold.token : null;
}

/**
 * "run 3 call 1: tester is in coder's session (shop continue, process 812) since …; …" — the
 * one-line refusal (exit 6); while an agent holds it, the run's trail can be followed meanwhile.
 */
export function sessionHeld(
  runId: number,
  exec: Pick<Execution, 'key' | 'agent'>,
  hold: SessionHold,
  selfHost: string,
  doing: string,
): SessionHeldError {
  const where = `process ${hold.pid ?? '?'}${hold.host === selfHost ? '' : ` on ${hold.host}`}`;
  const head = `run ${runId} call ${exec.key}: `;
  if (hold.kind === 'agent') {
    return new SessionHeldError(
      runId,
      exec.key,
      `${head}${exec.agent ?? 'the agent'} is at work in its session (${where}) since ${localTime(hold.since)}`,
      [{ verb: 'follow', handle: String(runId) }],
    );
  }
  const who = `${hold.by} is in ${exec.agent ?? 'the agent'}'s session (shop continue, ${where})`;
  return new SessionHeldError(
    runId,
    exec.key,
    `${head}${who} since ${localTime(hold.since)}; answer there (the agent reports when it has what it needs), or ${doing} again after that session closes`,
  );
}
