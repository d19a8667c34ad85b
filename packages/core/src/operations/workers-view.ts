import type { Liveness } from '../run-status.js';
import { workerIsLive } from '../worker/registration.js';
import type { Store } from '../store/store.js';
import type { WorkersJson } from './shapes.js';

/**
 * shop workers --json: the registry as the documented shape, live or gone judged now. A gone
 * worker's last heartbeat still counts the runs and agents it had; shown as its own they would
 * read as held, when live workers take those runs over and its agents ended with it: 0.
 */
export async function workersJson(
  store: Store,
  liveness: Liveness,
  now: number,
  leaseMs: number,
): Promise<WorkersJson> {
  const iso = (t: number) => new Date(t).toISOString();
  return (await store.listWorkers()).map((w) => {
    const live = workerIsLive(w, liveness, now, leaseMs);
    return {
      id: w.id,
      host: w.host,
      pid: w.pid,
      state: live ? 'live' : 'gone',
      runs_held: live ? w.runsHeld : 0,
      agents: live ? w.agents : 0,
      max_parallel: w.maxParallel,
      project: w.project,
      since: iso(w.startedAt),
      last_heartbeat: iso(w.heartbeatAt),
      left: live ? w.left.map((l) => ({ run: l.runId, workflow: l.spec, reason: l.reason })) : [],
    };
  });
}
