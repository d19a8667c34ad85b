import { describe, expect, it } from 'vitest';
import { recordAnswer } from '../operations/answer.js';
import type { Store } from '../store/store.js';
import type { Wake } from '../store/worker-store.js';
import { flowsClosedAfterEach } from '../engine/testing/flows.js';
import { createRun } from '../engine/drive-run.js';
import { FLOW_PATH } from '../engine/testing/flow.js';
import { Worker, type WorkerEvent } from './worker.js';
import { until } from '../testing/until.js';

const setup = flowsClosedAfterEach('shop-worker-');

describe('shop watch holding runs', () => {
  it('a held run whose renewals keep failing past its lease is let go, and claimed anew before it is driven', async () => {
    const { world, start, drive } = setup();
    world.ports.leaseMs = 300;
    const id = await start('local go = pause("Ship?")\nreturn go.responder');
    expect((await drive(id)).status).toBe('waiting_human');
    const store = world.store;
    let failing = false;
    let failedPastLease = false;
    // Renewals cannot reach the store (a network blip that lasts); everything else can.
    const flaky = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'renewLease') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<Store['renewLease']>) => {
          if (!failing) return target.renewLease(...args);
          const run = await target.getRun(id);
          if (run?.owner && target.now() >= run.owner.leaseUntil) failedPastLease = true;
          throw new Error('connection reset');
        };
      },
    });
    const ports = { ...world.ports, store: flaky };
    const events: WorkerEvent[] = [];
    const stop = new AbortController();
    const worker = new Worker(ports, {
      maxParallel: 2,
      maxDrivers: 2,
      only: [id],
      project: 'p',
      signal: stop.signal,
      report: (e) => events.push(e),
      portsFor: () => ports,
    });
    const running = worker.run();
    await until('the worker to hold the run', () => events.some((e) => e.type === 'took'));
    failing = true;
    world.clock.t += 1_000;
    // Passes go on meanwhile (wakes): none of them may count the run as still held.
    await until('a renewal to fail past the lease', () => (world.signals.wake(), failedPastLease));
    // The failed renewal's handler runs before the next task: the hold is lost by then.
    await new Promise((r) => setImmediate(r));
    failing = false;
    await recordAnswer(world.ports, (await store.getExecution(id, '1'))!, { verdict: 'approved' }, 'cli', 'ben');
    world.signals.wake();
    await until('the run to be driven', () => events.some((e) => e.type === 'outcome'));
    stop.abort();
    await running;
    expect(events.map((e) => (e.type === 'took' ? `took ${e.how}` : e.type))).toEqual([
      'took waiting',
      'took waiting',
      'resuming',
      'outcome',
      'stopping',
    ]);
    expect(events[3]).toMatchObject({ type: 'outcome', outcome: { status: 'completed', result: 'ben' } });
  });
});

describe('shop watch sharing runs with other workers', () => {
  it('takes no more than its share of the idle runs among the live workers, and the rest once the others fall silent', async () => {
    const { world, start, drive } = setup();
    world.ports.leaseMs = 3_000;
    const ids: number[] = [];
    for (let i = 0; i < 4; i++) {
      const id = await start('local go = pause("Ship?")\nreturn go.responder');
      expect((await drive(id)).status).toBe('waiting_human');
      ids.push(id);
    }
    // Another machine's worker, heartbeating now: two live workers share the four runs.
    await world.store.registerWorker({
      id: 'other',
      host: 'elsewhere',
      pid: 7,
      pidStart: null,
      project: 'p',
      maxParallel: 2,
    });
    const events: WorkerEvent[] = [];
    const stop = new AbortController();
    // Each pass ends by asking for the next timer: counted, so the test knows a pass has looked.
    let passesEnded = 0;
    const store = new Proxy(world.store, {
      get: (target, prop, receiver) =>
        prop === 'nextTimer'
          ? (...a: Parameters<Store['nextTimer']>) => (passesEnded++, target.nextTimer(...a))
          : Reflect.get(target, prop, receiver),
    });
    const ports = { ...world.ports, store };
    const worker = new Worker(ports, {
      maxParallel: 2,
      maxDrivers: 8,
      only: null,
      project: 'p',
      signal: stop.signal,
      report: (e) => events.push(e),
      portsFor: () => ports,
    });
    const running = worker.run();
    // Distinct runs taken (a run whose lease ran out with the clock's jump is taken again: counted once).
    const took = () => new Set(events.flatMap((e) => (e.type === 'took' ? [e.run.id] : []))).size;
    await until('the worker to take its share', () => took() === 2);
    // Two more passes end (the first may have begun before): one has looked again, all of it after the share was taken.
    const ended = passesEnded;
    await until('a whole pass more', () => (world.signals.wake(), passesEnded >= ended + 2));
    expect(took()).toBe(2);
    // The other worker falls silent for a whole lease: gone, so this one takes the rest.
    world.clock.t += 3_001;
    expect(ids).toHaveLength(4);
    await until('the rest to be taken', () => (world.signals.wake(), took() === 4));
    stop.abort();
    await running;
  });
});

describe('shop watch taking over', () => {
  it('takes a run whose driver died mid-work even when it holds its share of the waiting ones', async () => {
    const { world, start, drive, dir } = setup();
    world.ports.leaseMs = 60_000;
    for (let i = 0; i < 3; i++)
      expect((await drive(await start('local go = pause("Ship?")\nreturn go.responder'))).status).toBe('waiting_human');
    // Another live worker: this one's share of the open runs is 2 of 3, and stays 2 of 4 — it takes two waiting runs.
    await world.store.registerWorker({
      id: 'other',
      host: 'elsewhere',
      pid: 7,
      pidStart: null,
      project: 'p',
      maxParallel: 2,
    });
    const events: WorkerEvent[] = [];
    const stop = new AbortController();
    const worker = new Worker(world.ports, {
      maxParallel: 2,
      maxDrivers: 8,
      only: null,
      project: 'p',
      signal: stop.signal,
      report: (e) => events.push(e),
      portsFor: () => world.ports,
    });
    const running = worker.run();
    await until('the worker to hold its share', () => events.filter((e) => e.type === 'took').length === 2);
    // A run driven elsewhere, whose driver dies mid-work: it writes nothing more, and its (short) lease runs out.
    world.workflows.set(FLOW_PATH, 'function workflow(prompt)\n  return "done"\nend\n');
    const { run, owner } = await createRun(
      { ...world.ports, leaseMs: 5 },
      { spec: 'flow', workflowPath: FLOW_PATH, prompt: 'x', workspace: dir, actor: 'tester' },
    );
    owner.lose('the driver died');
    world.clock.t += 10;
    await until(
      'the interrupted run to be taken over and completed',
      () => (world.signals.wake(), events.some((e) => e.type === 'outcome' && e.run.id === run.id)),
    );
    expect(events.find((e) => e.type === 'took' && e.run.id === run.id)).toMatchObject({ how: 'interrupted' });
    stop.abort();
    await running;
  });
});

describe('shop watch woken by its store', () => {
  it('an answer pushed for a run it holds is driven at once, without a pass over the open runs', async () => {
    const { world, start, drive } = setup();
    const id = await start('local go = pause("Ship?")\nreturn go.responder');
    expect((await drive(id)).status).toBe('waiting_human');
    let push: ((w: Wake) => void) | null = null;
    let passes = 0;
    let passesEnded = 0;
    // A store that pushes wakes (as PostgreSQL's LISTEN does), counting the passes' listings.
    const store = new Proxy(world.store, {
      get(target, prop, receiver) {
        if (prop === 'listen') return async (fn: (w: Wake) => void) => ((push = fn), { close: async () => undefined });
        if (prop === 'listOpenRuns') return async () => (passes++, target.listOpenRuns());
        if (prop === 'nextTimer')
          return async (...a: Parameters<Store['nextTimer']>) => (passesEnded++, target.nextTimer(...a));
        return Reflect.get(target, prop, receiver);
      },
    });
    const ports = { ...world.ports, store };
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
    await until('the worker to hold the run', () => events.some((e) => e.type === 'took'));
    await until('the pass that took it to end', () => passesEnded === passes);
    const before = passes;
    await recordAnswer(world.ports, (await world.store.getExecution(id, '1'))!, { verdict: 'approved' }, 'cli', 'ben');
    push!({ kind: 'answer', runId: id });
    await until('the run to be driven', () => events.some((e) => e.type === 'outcome'));
    expect(events.find((e) => e.type === 'resuming')).toMatchObject({ why: 'answer' });
    expect(events.find((e) => e.type === 'outcome')).toMatchObject({ outcome: { status: 'completed', result: 'ben' } });
    expect(passes).toBe(before);
    stop.abort();
    await running;
  });
});
