import { NonDeterminismError } from '../errors.js';
import { describeCall, matchesRecord, type CallRequest } from '../lua/requests.js';
import type { ReplayRecord } from '../types.js';

/** A recorded call, and whether this replay has reached it yet. */
type Entry = ReplayRecord & { reached: boolean };

/**
 * The run's recorded calls as replay consults them: by key, and by delivery number (the
 * order results were handed to Lua, which replay follows).
 */
export class ReplayLog {
  private readonly byKey = new Map<string, Entry>();
  private readonly byDelivery = new Map<number, Entry>();
  private readonly entries: Entry[];
  readonly lastDelivered: number;

  constructor(records: ReplayRecord[]) {
    this.entries = records.map((r) => ({ ...r, reached: false }));
    let last = 0;
    for (const e of this.entries) {
      this.byKey.set(e.key, e);
      if (e.delivered != null) {
        this.byDelivery.set(e.delivered, e);
        last = Math.max(last, e.delivered);
      }
    }
    this.lastDelivered = last;
  }

  get(key: string): ReplayRecord | undefined {
    return this.byKey.get(key);
  }

  delivery(n: number): ReplayRecord | undefined {
    return this.byDelivery.get(n);
  }

  /** Marks the record at `key` reached by `req`; a record for another call is non-determinism. */
  reach(key: string, req: CallRequest): ReplayRecord | undefined {
    const e = this.byKey.get(key);
    if (!e) return undefined;
    if (!matchesRecord(e.fingerprint, req)) throw new NonDeterminismError(key, e.fingerprint, `calls ${describeCall(req)}`);
    e.reached = true;
    return e;
  }

  /** The first recorded call (in call order) this replay has not reached. */
  firstUnreached(): ReplayRecord | undefined {
    return this.entries.find((e) => !e.reached);
  }
}
