import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Store } from '../store/store.js';
import { WorkerRegistration } from './registration.js';
import { tempDir } from '../testing/temp-dir.js';
import { until } from '../testing/until.js';

const open: { dir: string; store: Store }[] = [];
afterEach(async () => {
  for (const o of open.splice(0)) {
    await o.store.close();
    rmSync(o.dir, { recursive: true, force: true });
  }
});

function ports() {
  const dir = tempDir('shop-registration-');
  const clock = { t: 1_000_000 };
  const store = openSqliteStore(join(dir, 'shop.db'), () => clock.t);
  open.push({ dir, store });
  return {
    clock,
    store,
    ports: { store, self: { host: 'build-1', pid: 4242, pidStart: 's' }, newToken: () => 'worker-1', leaseMs: 60_000 },
  };
}

describe("a worker's registration", () => {
  it('registers with its project and limit, tells a changed load at once (only then), comes back when its row was forgotten, and ends', async () => {
    const { clock, store, ports: p } = ports();
    const load = { runsHeld: 0, agents: 0 };
    const reg = await WorkerRegistration.start(p, {
      project: 'git:abc',
      maxParallel: Infinity,
      load: () => ({ ...load }),
    });
    expect(await store.listWorkers()).toEqual([
      {
        id: 'worker-1',
        host: 'build-1',
        pid: 4242,
        pidStart: 's',
        project: 'git:abc',
        maxParallel: null,
        runsHeld: 0,
        agents: 0,
        left: [],
        startedAt: clock.t,
        heartbeatAt: clock.t,
      },
    ]);
    clock.t += 1_000;
    reg.loadChanged();
    await reg.beat();
    // Unchanged load: no heartbeat written by loadChanged (the beat above wrote the one at +1 s).
    const first = (await store.listWorkers())[0].heartbeatAt;
    clock.t += 1_000;
    reg.loadChanged();
    // The SQLite store writes within the task: a heartbeat queued here would be on record by the next one.
    await new Promise((r) => setImmediate(r));
    expect((await store.listWorkers())[0].heartbeatAt).toBe(first);
    load.runsHeld = 2;
    load.agents = 1;
    reg.loadChanged();
    await until('the changed load to be told', async () => (await store.listWorkers())[0].runsHeld === 2);
    expect(await store.listWorkers()).toMatchObject([{ runsHeld: 2, agents: 1, heartbeatAt: clock.t }]);
    await store.endWorker('worker-1');
    await reg.beat();
    expect((await store.listWorkers()).map((w) => w.id)).toEqual(['worker-1']);
    await reg.end();
    expect(await store.listWorkers()).toEqual([]);
  });
});
