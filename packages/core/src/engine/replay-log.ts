import { NonDeterminismError } from '../errors.js';
import { matchesAs, type AnyCall } from '../lua/calls/definition.js';
import type { CallRequest } from '../lua/requests.js';
import type { ReplayRecord } from '../types.js';

/**
 * The run's recorded calls as replay consults them: by key, and by delivery number (the
 * order results were handed to Lua, which replay follows).
 */
export class ReplayLog {
  private readonly byKey = new Map<string, number>();
  private readonly byDelivery = new Map<number, ReplayRecord>();
  /** Per record (in call order): reached by this replay yet. */
  private readonly reached: Uint8Array;
  readonly lastDelivered: number;

  constructor(private readonly records: ReplayRecord[]) {
    this.reached = new Uint8Array(records.length);
    let last = 0;
    records.forEach((r, i) => {
      this.byKey.set(r.key, i);
      if (r.delivered != null) {
        this.byDelivery.set(r.delivered, r);
        if (r.delivered > last) last = r.delivered;
      }
    });
    this.lastDelivered = last;
  }

  get(key: string): ReplayRecord | undefined {
    const i = this.byKey.get(key);
    return i === undefined ? undefined : this.records[i];
  }

  delivery(n: number): ReplayRecord | undefined {
    return this.byDelivery.get(n);
  }

  /** Marks the record at `key` reached by `req`; a record for another call is non-determinism. */
  reach(key: string, req: CallRequest, def: AnyCall): ReplayRecord | undefined {
    const i = this.byKey.get(key);
    if (i === undefined) return undefined;
    const r = this.records[i];
    if (!matchesAs(def, r.fingerprint, req))
      throw new NonDeterminismError(key, r.fingerprint, `calls ${def.describe(req)}`);
    this.reached[i] = 1;
    return r;
  }

  /** The first recorded call (in call order) this replay has not reached. */
  firstUnreached(): ReplayRecord | undefined {
    const i = this.reached.indexOf(0);
    return i < 0 ? undefined : this.records[i];
  }
}
