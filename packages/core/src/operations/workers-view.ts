import type { Liveness } from '../run-status.js';
import type { Store } from '../store/store.js';
import type { WorkerRow } from '../store/worker-store.js';
import type { WorkersJson } from './shapes.js';

/**
 * A worker is live while it heartbeats: it does every third of a lease, so one lease of silence
 * means it is gone (killed, its machine down). On this host a dead process tells at once.
 */
export function workerIsLive(w: WorkerRow, liveness: Liveness, now: number, leaseMs: number): boolean {
  if (now - w.heartbeatAt > leaseMs) return false;
  return w.host !== liveness.self.host || liveness.processAlive(w.pid, w.pidStart);
}

/** shop workers --json: the registry as the documented shape, live or gone judged now. */
export async function workersJson(store: Store, liveness: Liveness, now: number, leaseMs: number): Promise<WorkersJson> {
  const iso = (t: number) => new Date(t).toISOString();
  return (await store.listWorkers()).map((w) => ({
    id: w.id, host: w.host, pid: w.pid, state: workerIsLive(w, liveness, now, leaseMs) ? 'live' : 'gone',
    runs_held: w.runsHeld, agents: w.agents, max_parallel: w.maxParallel, project: w.project,
    since: iso(w.startedAt), last_heartbeat: iso(w.heartbeatAt),
  }));
}
