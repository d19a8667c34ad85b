import { processStart, sameProcess } from '../agents/process-group.js';
import { shopHostname } from '../host-name.js';
import type { ReadPorts } from '../operations/read-operations.js';
import type { Store } from '../store/store.js';

/**
 * A driver's lease: a dead worker's runs are taken over within it. SHOP_LEASE_SECONDS changes
 * it (slow or sleepy machines want longer); the driver renews it every third.
 */
export function leaseMs(env: NodeJS.ProcessEnv = process.env): number {
  const s = Number(env.SHOP_LEASE_SECONDS);
  return Number.isFinite(s) && s > 0 ? s * 1000 : 15_000;
}

/** What the reads need of this machine (operations/read-operations.ts): this process, how others are judged live, the lease. */
export function nodeReadPorts(store: Store): ReadPorts {
  return {
    store,
    self: { host: shopHostname(), pid: process.pid, pidStart: processStart(process.pid) },
    processAlive: sameProcess,
    leaseMs: leaseMs(),
  };
}
