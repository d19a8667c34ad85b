import { ConflictError } from '../errors.js';
import type { Run, RunOwner } from '../types.js';
import type { EnginePorts } from './ports.js';
import type { OwnerClaim } from '../store/store.js';

/**
 * The owner of a run if it is live: its lease has not expired and, on this host, its
 * process is still the one that took the run (a dead or reused pid frees the run at once).
 * On another host only the lease can tell.
 */
export function liveOwner(
  ports: Pick<EnginePorts, 'self' | 'processAlive' | 'clock'>,
  run: Pick<Run, 'owner'>,
): RunOwner | null {
  const o = run.owner;
  if (!o || o.leaseUntil <= ports.clock.now()) return null;
  if (o.host === ports.self.host && !ports.processAlive(o.pid, o.pidStart)) return null;
  return o;
}

export function describeOwner(o: RunOwner, self: { host: string }): string {
  return o.host === self.host ? `process ${o.pid}` : `process ${o.pid} on ${o.host}`;
}

/** How often a held run looks whether its renewal is due (a third of the lease, by the store's clock). */
const TICK_MS = 1_000;

/**
 * One driver's hold on one run: a token of its own, taken only when the run has no live
 * owner, kept by renewing the lease itself (every third of it) while held, checked on every
 * write (the store's fencing). Losing it is one code path: `lost` fires — a renewal refused,
 * renewals failing until the lease would have run out, or a write or read that found another
 * owner — and whoever holds the run stops on it: agents ended, nothing more written.
 */
export class Ownership {
  private readonly lostBy = new AbortController();
  /** Until when the store holds the lease for this driver, as far as it knows (the store's clock). */
  private leaseUntil: number;
  private timer: NodeJS.Timeout | null = null;
  private renewing = false;

  private constructor(
    private readonly ports: EnginePorts,
    readonly runId: number,
    readonly token: string,
    leaseUntil: number,
  ) {
    this.leaseUntil = leaseUntil;
    this.timer = setInterval(() => void this.renewIfDue(), Math.max(10, Math.min(TICK_MS, ports.leaseMs / 3)));
    // A run held is no reason for the process to stay alive.
    this.timer.unref();
  }

  /** Takes the run, or ConflictError naming the live owner. */
  static async claim(ports: EnginePorts, run: Run): Promise<Ownership> {
    const live = liveOwner(storeLiveness(ports), run);
    if (live) throw busy(ports, run.id, live);
    const token = ports.newToken();
    // The store judges the lease by its own clock; the caller vouches only for a death it saw.
    const dead =
      run.owner && run.owner.host === ports.self.host && !ports.processAlive(run.owner.pid, run.owner.pidStart);
    const claimed = await ports.store.claimRun(
      run.id,
      ownerRecord(ports, token),
      ports.leaseMs,
      dead ? run.owner!.token : null,
    );
    if (!claimed) {
      const now = await ports.store.getRun(run.id);
      throw now?.owner
        ? busy(ports, run.id, now.owner)
        : new ConflictError(`run ${run.id} was just taken by another driver; try again`);
    }
    return new Ownership(ports, run.id, token, claimed.owner?.leaseUntil ?? 0);
  }

  /** Adopts the owner a run was created with (shop run owns its new run from the start). */
  static adopt(ports: EnginePorts, run: Run): Ownership {
    if (!run.owner) throw new Error(`internal: run ${run.id} was created without an owner`);
    return new Ownership(ports, run.id, run.owner.token, run.owner.leaseUntil);
  }

  /** Aborted once the run is no longer this driver's (its reason says why). */
  get lost(): AbortSignal {
    return this.lostBy.signal;
  }

  /** The run turned out to be another driver's (a fenced write refused, a read naming another owner). */
  lose(why = 'another driver holds the run'): void {
    this.stopRenewing();
    if (!this.lostBy.signal.aborted) this.lostBy.abort(new Error(why));
  }

  /**
   * Renews the lease when a third of it has passed. A store out of reach now and then is no
   * reason to stop — until the lease would have run out: from then on another driver may hold
   * the run, so it is lost.
   */
  async renewIfDue(): Promise<void> {
    if (this.renewing || !this.timer) return;
    const now = this.ports.store.now();
    if (now - (this.leaseUntil - this.ports.leaseMs) < this.ports.leaseMs / 3) return;
    this.renewing = true;
    try {
      if (await this.ports.store.renewLease(this.runId, this.token, this.ports.leaseMs))
        this.leaseUntil = now + this.ports.leaseMs;
      else this.lose('another driver took the run');
    } catch {
      if (this.ports.store.now() >= this.leaseUntil)
        this.lose('the lease ran out while the store could not be reached');
    } finally {
      this.renewing = false;
    }
  }

  /**
   * Gives the run up (with `ifIdle`, kept when an answer waits to be taken in: 'answered').
   * A lost run is not touched: it may be another driver's by now.
   */
  async release(ifIdle: boolean): Promise<'released' | 'answered' | 'lost'> {
    if (this.lost.aborted) return 'lost';
    let left: 'released' | 'answered' | 'lost';
    try {
      left = await this.ports.store.releaseRun(this.runId, this.token, { ifIdle });
    } catch (e) {
      // Not renewed any more: the lease runs out and the run is free for another driver.
      this.stopRenewing();
      throw e;
    }
    if (left === 'released') this.stopRenewing();
    if (left === 'lost') this.lose();
    return left;
  }

  private stopRenewing() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }
}

/** The owner for a new run or a claim: this process (the store sets the lease by its clock). */
export function ownerRecord(ports: Pick<EnginePorts, 'self'>, token: string): OwnerClaim {
  return { token, ...ports.self };
}

/** Who is live, judged by the store's clock (the one claims are judged by) and this host's processes. */
export function storeLiveness(
  ports: Pick<EnginePorts, 'self' | 'processAlive' | 'store'>,
): Pick<EnginePorts, 'self' | 'processAlive' | 'clock'> {
  return { self: ports.self, processAlive: ports.processAlive, clock: { now: () => ports.store.now() } };
}

function busy(ports: EnginePorts, runId: number, o: RunOwner): ConflictError {
  return new ConflictError(`run ${runId} is being driven by ${describeOwner(o, ports.self)}`, [
    { verb: 'stop', handle: String(runId), needs: 'reason' },
  ]);
}
