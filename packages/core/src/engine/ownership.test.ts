import { describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { recordAnswer } from '../operations/answer.js';
import { stopRun } from '../operations/stop-run.js';
import type { Store } from '../store/store.js';
import { driveRun } from './drive-run.js';
import { flowsClosedAfterEach } from './testing/flows.js';
import { until } from '../testing/until.js';

const setup = flowsClosedAfterEach('shop-owner-');

/** The store with one method replaced (a store that fails in one way). */
function withMethod<K extends keyof Store>(store: Store, name: K, impl: Store[K]): Store {
  return new Proxy(store, {
    get: (target, prop, receiver) => (prop === name ? impl : Reflect.get(target, prop, receiver)),
  });
}

describe('ownership', () => {
  it('two drivers in one process: the second is refused while the first holds the run; the agent runs once', async () => {
    const { world, start, drive } = setup({ coder: [{ summary: 'slow', delayMs: 300 }] });
    const id = await start('return run("coder").summary');
    const first = drive(id);
    await until('the agent to start', () => world.runner.count() === 1);
    await expect(drive(id)).rejects.toThrow(ConflictError);
    await expect(drive(id)).rejects.toThrow(/is being driven by process \d+/);
    expect(await first).toEqual({ status: 'completed', result: 'slow' });
    expect(world.runner.count()).toBe(1);
  });

  it('a driver whose lease ran out and was taken over writes nothing more and stops its agent', async () => {
    const { world, start, drive } = setup({
      coder: [
        { summary: 'late', delayMs: 2_000 },
        { status: 'NEEDS_HUMAN', reason: 'which db?' },
      ],
    });
    const id = await start('return run("coder").summary');
    const sleeper = drive(id);
    await until('the agent to start', () => world.runner.count() === 1);
    // The laptop slept: the lease ran out, and `shop resume` took over (re-invoking the agent).
    world.clock.t += world.ports.leaseMs + 1;
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      execution: { key: '1', waitingFor: 'which db?' },
    });
    const before = JSON.stringify(await world.store.loadExecutions(id));
    expect(await sleeper).toEqual({ status: 'lost' });
    expect(world.runner.aborted).toHaveLength(1);
    expect(JSON.stringify(await world.store.loadExecutions(id))).toBe(before);
    expect((await world.store.getRun(id))!.status).toBe('waiting_human');
  });

  it('a driver whose renewals keep failing stops its agent and writes nothing once its lease would have run out', async () => {
    const { world, start } = setup({ coder: [{ summary: 'late', delayMs: 5_000 }] });
    world.ports.leaseMs = 300;
    const id = await start('return run("coder").summary');
    const store = world.store;
    let refused = 0;
    // The store is out of reach for renewals only: every other look and write still gets through.
    const ports = {
      ...world.ports,
      store: withMethod(store, 'renewLease', async () => (refused++, Promise.reject(new Error('connection reset')))),
    };
    const driving = driveRun(ports, id, { wait: false });
    await until('the agent to start', () => world.runner.count() === 1);
    const before = JSON.stringify([await store.loadExecutions(id), await store.listEvents(id), await store.getRun(id)]);
    world.clock.t += 1_000;
    expect(await driving).toEqual({ status: 'lost' });
    expect(refused).toBeGreaterThan(0);
    expect(world.runner.aborted).toHaveLength(1);
    // Not even a release: by the store's clock the run may be another driver's by now.
    expect(JSON.stringify([await store.loadExecutions(id), await store.listEvents(id), await store.getRun(id)])).toBe(
      before,
    );
  });

  it("a driver whose lapsed lease another machine claimed (the store's clock) stops its agent at its next renewal, writing nothing", async () => {
    const { world, start } = setup({ coder: [{ summary: 'late', delayMs: 60_000 }] });
    world.ports.leaseMs = 300;
    const id = await start('return run("coder").summary');
    const driving = driveRun(world.ports, id, { wait: false });
    await until('the agent to start', () => world.runner.count() === 1);
    world.clock.t += 1_000;
    const taken = await world.store.claimRun(
      id,
      { token: 'elsewhere', host: 'box-2', pid: 7, pidStart: '7' },
      60_000,
      null,
    );
    expect(taken!.owner).toMatchObject({ token: 'elsewhere', host: 'box-2' });
    const before = JSON.stringify([
      await world.store.loadExecutions(id),
      await world.store.listEvents(id),
      await world.store.getRun(id),
    ]);
    expect(await driving).toEqual({ status: 'lost' });
    expect(world.runner.aborted).toHaveLength(1);
    expect(
      JSON.stringify([
        await world.store.loadExecutions(id),
        await world.store.listEvents(id),
        await world.store.getRun(id),
      ]),
    ).toBe(before);
  });

  it('an answer recorded just as a driver leaves is never stranded: the driver takes it in and goes on', async () => {
    const { world, start } = setup();
    const id = await start('local go = pause("Ship?")\nreturn go.responder');
    let handedTo: unknown = 'not answered';
    // Another process answers between the driver's last look and its release.
    const store = world.ports.store;
    world.ports.store = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'releaseRun') return Reflect.get(target, prop, receiver);
        return async (...args: Parameters<Store['releaseRun']>) => {
          if (handedTo === 'not answered') {
            const exec = (await target.getExecution(id, '1'))!;
            handedTo = (
              await recordAnswer({ ...world.ports, store: target }, exec, { verdict: 'approved' }, 'cli', 'ben')
            ).handedTo;
          }
          return target.releaseRun(...args);
        };
      },
    });
    expect(await driveRun(world.ports, id, { wait: false })).toEqual({ status: 'completed', result: 'ben' });
    // The answering command saw the live driver and left the answer to it.
    expect(handedTo).toMatchObject({ pid: process.pid });
  });
});

describe('stop', () => {
  it('the owner notices a recorded stop, stops the agent, starts nothing more, ends the run stuck', async () => {
    const { world, start, drive } = setup({ coder: [{ delayMs: 60_000 }] });
    const id = await start('run("coder", "long")\nrun("reviewer", "next")\nreturn 1');
    const driving = drive(id);
    await until('the agent to start', () => world.runner.count() === 1);
    const started = Date.now();
    const { run, by } = await stopRun(world.ports, id, 'enough', 'ann');
    // The agent was stopped, not waited for (it takes 60 s).
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(by).toMatchObject({ pid: process.pid });
    expect(run).toMatchObject({ status: 'stuck', reason: 'enough' });
    expect(await driving).toEqual({ status: 'stuck', reason: 'enough' });
    expect(world.runner.aborted).toHaveLength(1);
    expect(world.runner.count('reviewer')).toBe(0);
    expect((await world.store.getExecution(id, '1'))!).toMatchObject({
      status: 'failed',
      error: 'the run ended stuck: enough',
    });
    expect((await world.store.listEvents(id)).filter((e) => e.type === 'stopped').map((e) => e.actor)).toEqual(['ann']);
  });

  it('during sh(): the command is killed and the next run() never starts', async () => {
    const { world, start, drive } = setup();
    world.shellDelayMs = 10_000;
    const id = await start('sh("sleep 30")\nreturn run("coder").status');
    const driving = drive(id);
    await until('the command to start', () => world.shellCommands.length === 1);
    await stopRun(world.ports, id, 'no more', 'ann');
    expect(await driving).toEqual({ status: 'stuck', reason: 'no more' });
    expect(world.runner.count()).toBe(0);
    expect((await world.store.loadExecutions(id)).map((e) => [e.kind, e.status])).toEqual([['sh', 'failed']]);
  });

  it('with no live owner, the stop is carried out at once', async () => {
    const { world, start, drive } = setup();
    const id = await start('return pause("Ship?").continue');
    expect((await drive(id)).status).toBe('waiting_human');
    expect(await stopRun(world.ports, id, 'cancelled', 'ann')).toMatchObject({
      by: null,
      run: { status: 'stuck', reason: 'cancelled' },
    });
    await expect(stopRun(world.ports, id, 'again', 'ann')).rejects.toThrow(/already ended \(stuck: cancelled\)/);
  });
});

describe('Ctrl-C', () => {
  it('stops the agents, leaves the run resumable and the lease free; resume re-invokes the same session', async () => {
    const { world, start } = setup({ coder: [{ delayMs: 10_000 }, { summary: 'again' }] });
    const id = await start('return run("coder").summary');
    const abort = new AbortController();
    const driving = driveRun(world.ports, id, { wait: false, signal: abort.signal });
    await until('the agent to start', () => world.runner.count() === 1);
    abort.abort();
    expect(await driving).toEqual({ status: 'interrupted' });
    expect(world.runner.aborted).toHaveLength(1);
    expect(await world.store.getRun(id)).toMatchObject({ status: 'running', owner: null });
    expect(await driveRun(world.ports, id, { wait: false })).toEqual({ status: 'completed', result: 'again' });
    expect(world.runner.invocations.map((i) => [i.sessionId, i.resume])).toEqual([
      ['session-1', false],
      ['session-1', true],
    ]);
  });
});
