import { ConflictError } from '../errors.js';
import type { Signal } from '../signals/signal.js';
import type { Store } from '../store/store.js';

/** What `shop report` knows of its step: Shop's variables in the agent's environment. */
export interface ReportTarget {
  runId: number;
  key: string;
  /** SHOP_SIGNAL_FILE: the attempt's own, unguessable path — the report's credential. */
  signalPath: string;
}

/**
 * `shop report` inside an agent step: the report is kept in the store for the call's current
 * attempt, so whoever reads it (the driver, a shop continue, a worker on another machine) needs
 * no shared disk. Taken only from the call's own attempt while it runs or a person is in its
 * session (the store checks the signal path in the same transaction); refused otherwise.
 */
export async function recordReport(store: Store, target: ReportTarget, signal: Signal): Promise<void> {
  if (await store.recordReport(target.runId, target.key, target.signalPath, JSON.stringify(signal))) return;
  throw new ConflictError(
    `run ${target.runId} call ${target.key} takes no report from this step: SHOP_SIGNAL_FILE is not the path of its current attempt, or the call is not running`,
    [{ verb: 'status', handle: String(target.runId) }],
  );
}
