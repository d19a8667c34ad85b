import { randomUUID } from 'node:crypto';
import type { EnginePorts } from '../engine/ports.js';
import { staleHold } from '../engine/session-hold.js';
import type { Execution } from '../types.js';

/** A person's hold on a waiting call's agent session, for as long as `shop continue` has it open. */
export interface HeldSession {
  /** The hold's token: what lets this process keep the session's transcript in the store. */
  token: string;
  release(): Promise<void>;
}

/**
 * Takes a waiting call's session for a person (`shop continue`) before anything is started
 * on it: one transaction, refused (exit 6, one line) when the ask was answered meanwhile or
 * another process holds the session. A hold left by a shop continue that died (same host:
 * its pid and start time no longer match) is judged dead and taken over.
 */
export async function holdSessionFor(
  ports: Pick<EnginePorts, 'store' | 'self' | 'processAlive'>,
  exec: Execution,
  by: string,
): Promise<HeldSession> {
  const token = randomUUID();
  const current = (await ports.store.getExecution(exec.runId, exec.key)) ?? exec;
  await ports.store.holdSession(
    exec.runId,
    exec.key,
    { token, by, host: ports.self.host, pid: ports.self.pid, pidStart: ports.self.pidStart },
    {
      ask: exec.ask,
      staleHold: staleHold(ports, current, 'continue'),
    },
  );
  let released = false;
  return {
    token,
    async release() {
      if (released) return;
      released = true;
      await ports.store.releaseSession(exec.runId, exec.key, token);
    },
  };
}
