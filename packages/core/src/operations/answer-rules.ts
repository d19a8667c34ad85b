import { insideAgentStep } from '../agents/inside-agent-step.js';
import { UsageError } from '../errors.js';

/**
 * Who calls an operation. A front end says whether it runs inside an agent step — by every sign
 * the machine shows (agents/inside-agent-step.ts: the step's variables in its environment or an
 * ancestor's, an ancestor that is the agent host or a step's init, the step's PID namespace) —
 * and every answering operation refuses such a caller: an agent cannot approve its own gate from
 * its shell, not even from a process it left behind with its environment cleared.
 */
export interface Caller {
  /** What says this process runs inside an agent step (e.g. `SHOP_AGENT=coder`), or null: a person. */
  readonly agentStep: string | null;
}

/** A caller that is a person (tests, and servers that sign people in). */
export const PERSON: Caller = { agentStep: null };

/**
 * This process as a caller: looked at on first use only, and once (walking /proc costs a
 * little, and most commands never answer).
 */
export function callerOf(env: NodeJS.ProcessEnv): Caller {
  let seen: string | null | undefined;
  return {
    get agentStep() {
      if (seen === undefined) seen = insideAgentStep(env);
      return seen;
    },
  };
}

/**
 * The one refusal of acts that are a person's, called by every command that does one, before
 * anything is read: shop approve, reject, answer, signal (all through answer-call.ts), continue,
 * claim (and --release), tui, access (add, list, revoke), serve — and, as they come, resume
 * --accept-changes and event send (operations/send-event.ts); core's answer, claim and open-session operations call it again. `what` names the
 * command in the one line (exit 2), `does` what it is for. shop report and shop gate are an
 * agent's own and never refuse.
 */
export function refuseAgent(caller: Caller, what: string, does = 'answers for a person'): void {
  const why = caller.agentStep;
  if (why)
    throw new UsageError(
      `${what} ${does} and cannot run inside an agent step (${why}); agents report with shop report`,
    );
}
