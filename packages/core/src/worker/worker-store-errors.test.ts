import { describe, expect, it } from 'vitest';
import type { Store } from '../store/store.js';
import { flowsClosedAfterEach } from '../engine/testing/flows.js';
import { Worker, type WorkerEvent } from './worker.js';
import { until } from '../testing/until.js';

const setup = flowsClosedAfterEach('shop-worker-store-');

describe('shop watch when its store is out of reach', () => {
  it('says so once, keeps running, and takes the runs once the store answers again; registered all along', async () => {
    const { world, start, drive } = setup();
    const id = await start('local go = pause("Ship?")\nreturn go.responder');
    expect((await drive(id)).status).toBe('waiting_human');
    expect((await world.store.getRun(id))!.owner).toBeNull();
    let down = true;
    let failedPasses = 0;
    // Every pass's first read fails while "the database restarts".
    const flaky = new Proxy(world.store, {
      get(target, prop, receiver) {
        if (prop !== 'claimIdleRuns' || !down) return Reflect.get(target, prop, receiver);
        return async () => {
          failedPasses++;
          throw new Error('connection terminated unexpectedly');
        };
      },
    }) as Store;
    const ports = { ...world.ports, store: flaky };
    const events: WorkerEvent[] = [];
    const stop = new AbortController();
    const worker = new Worker(ports, {
      maxParallel: 2,
      maxDrivers: 2,
      only: null,
      project: 'p',
      signal: stop.signal,
      report: (e) => events.push(e),
      portsFor: () => ports,
    });
    const running = worker.run();
    await until('the failure to be told', () => events.some((e) => e.type === 'pass_failed'));
    // More passes fail (woken again and again): none of them tells it again, or ends the registration.
    await until('three more passes to fail', () => (world.signals.wake(), failedPasses >= 4));
    expect((await world.store.listWorkers()).map((w) => w.project)).toEqual(['p']);
    down = false;
    world.signals.wake();
    await until('the run to be held', () => events.some((e) => e.type === 'took'));
    stop.abort();
    await running;
    expect(events.map((e) => e.type)).toEqual(['pass_failed', 'took', 'pass_recovered', 'stopping']);
    expect(events[0]).toMatchObject({ type: 'pass_failed', message: 'connection terminated unexpectedly' });
    expect(await world.store.listWorkers()).toEqual([]);
  });
});
