import type { Liveness } from '../run-status.js';
import { workerIsLive } from '../worker/registration.js';
import type { Store } from '../store/store.js';
import type { WorkersJson } from './shapes.js';

/** shop workers --json: the registry as the documented shape, live or gone judged now. */
export async function workersJson(store: Store, liveness: Liveness, now: number, leaseMs: number): Promise<WorkersJson> {
  const iso = (t: number) => new Date(t).toISOString();
  return (await store.listWorkers()).map((w) => ({
    id: w.id, host: w.host, pid: w.pid, state: workerIsLive(w, liveness, now, leaseMs) ? 'live' : 'gone',
    runs_held: w.runsHeld, agents: w.agents, max_parallel: w.maxParallel, project: w.project,
    since: iso(w.startedAt), last_heartbeat: iso(w.heartbeatAt),
  }));
}
