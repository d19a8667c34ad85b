import type { Channel, RunOwner } from '../types.js';

// Inputs of the store port's operations that its parts (session-store.ts, worker-store.ts) take too:
// apart from store.ts, which imports those parts.

/** Who claims a run: its token (fencing) and its process; the store sets the lease. */
export type OwnerClaim = Omit<RunOwner, 'leaseUntil'>;

export interface EventInput {
  type: string;
  key?: string | null;
  actor: string;
  channel: Channel;
  data?: Record<string, unknown> | null;
}
