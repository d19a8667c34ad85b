import { handleOf } from '@shop/core/decisions/ask-handle';
import { claimAsk, releaseClaim } from '@shop/core/operations/claim-ask';
import type { TuiDeps } from '../deps.js';
import { duration } from '../format/time.js';
import { waitingCall, type Target } from './targets.js';

/**
 * The claim key: "I'm on it" for the ask on screen, or letting go of one's own claim. Someone
 * else's claim is refused by the core operation, naming them (it shows in the status line).
 */
export async function toggleClaim(deps: Pick<TuiDeps, 'ports' | 'responder'>, target: Target): Promise<string> {
  const { exec } = await waitingCall(deps.ports.store, target);
  const handle = handleOf(exec);
  if (exec.claim?.by === deps.responder) {
    await releaseClaim(deps.ports, { handle, by: deps.responder, channel: 'tui' });
    return `let go of ask ${handle}: its reminders and escalation go on`;
  }
  const claim = await claimAsk(deps.ports, { handle, by: deps.responder, channel: 'tui' });
  const lasts = duration(Date.parse(claim.claimed_by!.until) - deps.ports.clock.now());
  return `ask ${handle} claimed by ${deps.responder} for ${lasts}: reminders and escalation wait (m again lets go)`;
}
