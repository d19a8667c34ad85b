import { claimVerb, handleOf } from '@shop/core';
import type { TuiDeps } from '../deps.js';
import { duration } from '../format/time.js';
import { waitingCall, type Target } from './targets.js';

/**
 * The claim key: "I'm on it" for the ask on screen, or letting go of one's own claim. Someone
 * else's claim is refused by the core operation, naming them (it shows in the status line).
 */
export async function toggleClaim(deps: Pick<TuiDeps, 'ops' | 'responder'>, target: Target): Promise<string> {
  const { exec } = await waitingCall(deps.ops, target);
  const handle = handleOf(exec);
  if (claimVerb(exec.claim, deps.responder) === 'release') {
    await deps.ops.release({ handle, by: deps.responder, channel: 'tui' });
    return `let go of ask ${handle}: its reminders and escalation go on`;
  }
  const claim = await deps.ops.claim({ handle, by: deps.responder, channel: 'tui' });
  const lasts = duration(Date.parse(claim.claimed_by!.until) - deps.ops.now());
  return `ask ${handle} claimed by ${deps.responder} for ${lasts}: reminders and escalation wait (m again lets go)`;
}
