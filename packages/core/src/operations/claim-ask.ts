import { handleOf, parseAskRef } from '../decisions/ask-handle.js';
import type { EnginePorts } from '../engine/ports.js';
import { storeLiveness } from '../engine/ownership.js';
import { ConflictError, UsageError } from '../errors.js';
import { quoted } from '../text.js';
import type { Channel, Execution } from '../types.js';
import { claimedByJson } from './json-views.js';
import { onlyAsk, pickAsk } from './pick-ask.js';
import { loadRunView } from './run-view.js';
import { checkedName as checkedResponder } from '../project/responder.js';
import type { ClaimJson } from './shapes.js';

/** How long a claim lasts when the workflow's config{} sets no claim_timeout: an hour. */
export const DEFAULT_CLAIM_TIMEOUT_S = 3600;

/** A person's channel: agents, signal files and the engine never claim. */
export type ClaimChannel = Exclude<Channel, 'agent' | 'signal' | 'engine' | 'worker'>;

export interface ClaimRequest {
  /** The ask's handle (`33.4`, `33.4.2`), or a run id when the run waits on one ask only. */
  handle: string;
  by: string;
  channel: ClaimChannel;
  /** Someone else's claim is let go first (a page's "Take over from …"), not refused. */
  takeOver?: boolean;
}

export interface ReleaseRequest {
  handle: string;
  /** Who lets go: their own claim, or with `force` anyone's (taking it over). */
  by: string;
  force?: boolean;
  channel?: ClaimChannel;
}

/**
 * "I'm on it": claims the open ask a handle names for `by` (claiming again refreshes it).
 * While the claim lasts (config claim_timeout, default an hour) the ask's reminders and
 * escalation wait; its timeout does not. Refused: a handle naming no ask (NotFoundError), an
 * ask answered or closed (ConflictError naming who answered), someone else's claim
 * (ConflictError naming them and since when).
 */
export async function claimAsk(ports: EnginePorts, req: ClaimRequest): Promise<ClaimJson> {
  if (!req.takeOver) return claimOnce(ports, req);
  try {
    return await claimOnce(ports, req);
  } catch (e) {
    // Taking over: whoever holds it lets go (forced), then it is claimed; nothing to let go of (answered, closed) stays refused.
    if (!(e instanceof ConflictError)) throw e;
    if (!(await releaseClaim(ports, { handle: req.handle, by: req.by, force: true, channel: req.channel })).released)
      throw e;
    return claimOnce(ports, req);
  }
}

async function claimOnce(ports: EnginePorts, req: ClaimRequest): Promise<ClaimJson> {
  const by = checkedName(req.by);
  const exec = await askOf(ports, req.handle);
  const ttlMs = (exec.claimTimeout ?? DEFAULT_CLAIM_TIMEOUT_S) * 1000;
  const claim = await ports.store.claimAsk(
    { runId: exec.runId, key: exec.key, ask: exec.ask, by, channel: req.channel },
    { ttlMs },
  );
  return claimJson(exec, claimedByJson(claim), null);
}

/**
 * Lets go of the claim on an ask: `by`'s own, or with `force` whoever's it is. Nothing to let
 * go of is no error (`released` is null). Someone else's claim without `force` is a
 * ConflictError naming them.
 */
export async function releaseClaim(ports: EnginePorts, req: ReleaseRequest): Promise<ClaimJson> {
  const by = checkedName(req.by);
  const exec = await askOf(ports, req.handle);
  const ref = {
    runId: exec.runId,
    key: exec.key,
    ask: exec.ask,
    by: req.force ? null : by,
    actor: by,
    channel: req.channel ?? 'cli',
  };
  const released = await ports.store.releaseClaim(ref);
  return claimJson(exec, null, claimedByJson(released));
}

/** The open ask a handle (or a bare run id) names, picked exactly as answers pick it. */
async function askOf(ports: EnginePorts, handle: string): Promise<Execution> {
  const ref = parseAskRef(handle);
  if (!ref) throw new UsageError(`${quoted(handle)} is not an ask handle (such as 33.4, as shop inbox shows it)`);
  const view = await loadRunView(ports.store, storeLiveness(ports), ref.runId, { last: 0 });
  if (ref.key === null) return onlyAsk(ports.store, view, 'claim');
  return pickAsk(ports.store, view, { key: ref.key, ask: ref.ask ?? 1 });
}

function claimJson(exec: Execution, claimedBy: ClaimJson['claimed_by'], released: ClaimJson['released']): ClaimJson {
  return {
    handle: handleOf(exec),
    run: exec.runId,
    key: exec.key,
    ask: exec.ask,
    question: exec.waitingFor,
    claimed_by: claimedBy,
    released,
  };
}

/** A claimant's name is shown in every inbox: one plain, short line, as every responder's name. */
function checkedName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw new UsageError('a claim needs the name of who claims it');
  return checkedResponder(trimmed, 'the name');
}
