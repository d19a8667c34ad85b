import { storeLiveness } from '../engine/ownership.js';
import type { EnginePorts } from '../engine/ports.js';
import type { Liveness } from '../run-status.js';
import type { WorkerLoad, WorkerRow } from '../store/worker-store.js';

/**
 * A worker's row in the store's registry (shop workers): registered when it starts, a
 * heartbeat with its load every third of a lease, removed when it ends. A row found gone (a
 * gone worker's row forgotten while this one was paused, say) is registered again.
 */
export class WorkerRegistration {
  private timer: NodeJS.Timeout | null = null;
  private beating: Promise<void> = Promise.resolve();
  /** The load last sent, so a pass that changed it tells at once ("runs held" is not a lease old). */
  private sent = '';

  private constructor(
    private readonly ports: Pick<EnginePorts, 'store'>,
    private readonly row: Parameters<EnginePorts['store']['registerWorker']>[0],
    private readonly load: () => WorkerLoad,
  ) {}

  static async start(
    ports: Pick<EnginePorts, 'store' | 'self' | 'newToken' | 'leaseMs'>,
    opts: { project: string; maxParallel: number; load: () => WorkerLoad },
  ): Promise<WorkerRegistration> {
    const row = {
      id: ports.newToken(),
      ...ports.self,
      project: opts.project,
      maxParallel: Number.isFinite(opts.maxParallel) ? opts.maxParallel : null,
    };
    const reg = new WorkerRegistration(ports, row, opts.load);
    await ports.store.registerWorker(row);
    reg.sent = JSON.stringify({ runsHeld: 0, agents: 0 });
    reg.timer = setInterval(
      () => {
        reg.beating = reg.beating.then(() => reg.beat());
      },
      Math.max(1_000, ports.leaseMs / 3),
    );
    // The worker's own loop keeps the process alive; a registration left behind must not.
    reg.timer.unref();
    return reg;
  }

  get id(): string {
    return this.row.id;
  }

  /** After a pass: a heartbeat now when the load changed since the last one. */
  loadChanged(): void {
    if (JSON.stringify(this.load()) !== this.sent) this.beating = this.beating.then(() => this.beat());
  }

  /** One heartbeat; a store that cannot be reached now is tried again at the next one. */
  async beat(): Promise<void> {
    try {
      const load = this.load();
      this.sent = JSON.stringify(load);
      if (!(await this.ports.store.heartbeatWorker(this.row.id, load))) await this.ports.store.registerWorker(this.row);
    } catch {
      /* the next heartbeat tries again; the registry is for people, runs are fenced by leases */
    }
  }

  async end(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.beating;
    await this.ports.store.endWorker(this.row.id).catch(() => undefined);
  }
}

/**
 * A worker is live while it heartbeats: it does every third of a lease, so one lease of silence
 * means it is gone (killed, its machine down). On this host a dead process tells at once.
 */
export function workerIsLive(w: WorkerRow, liveness: Liveness, now: number, leaseMs: number): boolean {
  if (now - w.heartbeatAt > leaseMs) return false;
  return w.host !== liveness.self.host || liveness.processAlive(w.pid, w.pidStart);
}

/** How many workers are live on the store now, judged by its clock (shop run --detach says it; a worker's share divides by it). */
export async function liveWorkerCount(ports: EnginePorts): Promise<number> {
  const liveness = storeLiveness(ports);
  const now = ports.store.now();
  return (await ports.store.listWorkers()).filter((w) => workerIsLive(w, liveness, now, ports.leaseMs)).length;
}
