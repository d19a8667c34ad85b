import { storeLiveness } from '../engine/ownership.js';
import type { EnginePorts } from '../engine/ports.js';
import { workerIsLive } from '../worker/registration.js';

/** Workers live on the store now, judged by its clock. */
export async function liveWorkers(ports: EnginePorts): Promise<number> {
  const liveness = storeLiveness(ports);
  const now = ports.store.now();
  return (await ports.store.listWorkers()).filter((w) => workerIsLive(w, liveness, now, ports.leaseMs)).length;
}
