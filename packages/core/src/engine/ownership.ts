import { ConflictError } from '../errors.js';
import type { Run, RunOwner } from '../types.js';
import type { EnginePorts } from './ports.js';
import type { OwnerClaim } from '../store/store.js';

/**
 * The owner of a run if it is live: its lease has not expired and, on this host, its
 * process is still the one that took the run (a dead or reused pid frees the run at once).
 * On another host only the lease can tell.
 */
export function liveOwner(ports: Pick<EnginePorts, 'self' | 'processAlive' | 'clock'>, run: Pick<Run, 'owner'>): RunOwner | null {
  const o = run.owner;
  if (!o || o.leaseUntil <= ports.clock.now()) return null;
  if (o.host === ports.self.host && !ports.processAlive(o.pid, o.pidStart)) return null;
  return o;
}

export function describeOwner(o: RunOwner, self: { host: string }): string {
  return o.host === self.host ? `process ${o.pid}` : `process ${o.pid} on ${o.host}`;
}

/**
 * One driver's hold on one run: a token of its own, taken only when the run has no live
 * owner, kept by renewing the lease, checked on every write (the store's fencing).
 */
export class Ownership {
  private renewedAt: number;

  private constructor(private readonly ports: EnginePorts, readonly runId: number, readonly token: string) {
    this.renewedAt = ports.clock.now();
  }

  /** Takes the run, or ConflictError naming the live owner. */
  static async claim(ports: EnginePorts, run: Run): Promise<Ownership> {
    const live = liveOwner(storeLiveness(ports), run);
    if (live) throw busy(ports, run.id, live);
    const token = ports.newToken();
    // The store judges the lease by its own clock; the caller vouches only for a death it saw.
    const dead = run.owner && run.owner.host === ports.self.host && !ports.processAlive(run.owner.pid, run.owner.pidStart);
    const claimed = await ports.store.claimRun(run.id, ownerRecord(ports, token), ports.leaseMs, dead ? run.owner!.token : null);
    if (!claimed) {
      const now = await ports.store.getRun(run.id);
      throw now?.owner ? busy(ports, run.id, now.owner) : new ConflictError(`run ${run.id} was just taken by another driver; try again`);
    }
    return new Ownership(ports, run.id, token);
  }

  /** Adopts the token a run was created with (shop run owns its new run from the start). */
  static adopt(ports: EnginePorts, runId: number, token: string): Ownership {
    return new Ownership(ports, runId, token);
  }

  /** Renews the lease when a third of it has passed; false when another driver holds the run. */
  async renewIfDue(): Promise<boolean> {
    const now = this.ports.clock.now();
    if (now - this.renewedAt < this.ports.leaseMs / 3) return true;
    const kept = await this.ports.store.renewLease(this.runId, this.token, this.ports.leaseMs);
    if (kept) this.renewedAt = now;
    return kept;
  }

  release(ifIdle: boolean): Promise<'released' | 'answered' | 'lost'> {
    return this.ports.store.releaseRun(this.runId, this.token, { ifIdle });
  }
}

/** The owner for a new run or a claim: this process (the store sets the lease by its clock). */
export function ownerRecord(ports: Pick<EnginePorts, 'self'>, token: string): OwnerClaim {
  return { token, ...ports.self };
}

/** Who is live, judged by the store's clock (the one claims are judged by) and this host's processes. */
export function storeLiveness(ports: Pick<EnginePorts, 'self' | 'processAlive' | 'store'>): Pick<EnginePorts, 'self' | 'processAlive' | 'clock'> {
  return { self: ports.self, processAlive: ports.processAlive, clock: { now: () => ports.store.now() } };
}

function busy(ports: EnginePorts, runId: number, o: RunOwner): ConflictError {
  return new ConflictError(`run ${runId} is being driven by ${describeOwner(o, ports.self)}; wait for it, or stop it with: shop stop ${runId} --reason "…"`);
}
