import { UsageError } from '../errors.js';

/**
 * Who calls an operation. Inside an agent step the engine sets SHOP_AGENT; a front end
 * started there passes it as `agent`, and every answering operation refuses: an agent cannot
 * approve its own gate from its shell. Asks are answered by people.
 */
export interface Caller {
  agent: string | null;
}

/** Refuses an agent (`what`: the command or action named in the one line, e.g. "shop approve"). */
export function refuseAgent(caller: Caller, what: string): void {
  if (caller.agent) {
    throw new UsageError(`${what} answers for a person and cannot run inside an agent step (SHOP_AGENT=${caller.agent}); agents report with shop report`);
  }
}
