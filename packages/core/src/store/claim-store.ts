import type { AskClaim, Channel, Timer } from '../types.js';

/** Who claims which ask: a person, by a person's channel. */
export interface NewClaim {
  runId: number;
  key: string;
  ask: number;
  by: string;
  channel: Channel;
}

/** A claim as recorded: its ask, who, since when and until when it lasts. */
export interface Claim extends AskClaim {
  runId: number;
  key: string;
  ask: number;
}

/** Letting go of a claim: `by` names whose (null: anyone's — taking it over); `actor` is who does it. */
export interface ClaimRef {
  runId: number;
  key: string;
  ask: number;
  by: string | null;
  actor: string;
  channel: Channel;
}

/**
 * Claims on open asks ("I'm on it"), part of the store port. Each method is one transaction
 * with its audit event. A claim lasts `ttlMs` from when it is made or refreshed, judged by
 * the store's clock; past that it has aged out: readers no longer see it and anyone may
 * claim the ask.
 */
export interface ClaimStore {
  /**
   * Claims an open ask (its call waiting on it, no answer recorded), or refreshes the
   * caller's own claim. ConflictError when the ask is answered or closed, or when someone
   * else's claim lasts (naming them and since when); an aged-out claim is replaced.
   */
  claimAsk(claim: NewClaim, opts: { ttlMs: number }): Promise<Claim & { refreshed: boolean }>;
  /**
   * Lets go of the ask's claim (`by`'s own, or with `by` null anyone's), and brings its put-off
   * reminders and escalation back to now. ConflictError when it is someone else's; null when
   * no claim lasts on the ask.
   */
  releaseClaim(ref: ClaimRef): Promise<Claim | null>;
  /**
   * A driver's due reminder or escalation meets a claim: it is put off until the claim ages out
   * (a release brings it back), with an event. Null, nothing written, when no claim lasts on
   * its ask (the timer fires as usual); LostOwnershipError unless `token` owns the run.
   */
  putOffTimer(token: string, timer: Timer): Promise<AskClaim | null>;
}
