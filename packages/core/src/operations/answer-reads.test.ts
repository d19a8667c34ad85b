import { afterEach, describe, expect, it } from 'vitest';
import { newFlow } from '../engine/testing/flow.js';
import type { ScriptedWorld } from '../engine/testing/scripted-ports.js';
import { findProject } from '../project/project.js';
import type { Store } from '../store/store.js';
import { shopOperations } from './shop-operations.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

/** The store, every call written down by method name. */
function counting(store: Store): { store: Store; calls: string[] } {
  const calls: string[] = [];
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls.push(String(prop));
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { store: wrapped, calls };
}

/** A run waiting on its pause (ask 1.1), and core's operations over a store that counts its calls. */
async function waiting() {
  const f = newFlow('shop-answer-reads-');
  worlds.push(f.world);
  const id = await f.start('function workflow(p)\n  return pause("Ship?").continue\nend\n');
  expect((await f.drive(id)).status).toBe('waiting_human');
  const { store, calls } = counting(f.world.store);
  const ops = shopOperations({ ...f.world.ports, store }, findProject(f.dir, {}), { agentStep: null });
  return { id, ops, calls, f, store };
}

const count = (calls: string[], name: string) => calls.filter((c) => c === name).length;

describe('one answer reads the run once (shop approve <handle>)', () => {
  it('picking the ask and recording the answer: one read of the run and its open asks, one transaction', async () => {
    const { id, ops, calls } = await waiting();
    // What `shop approve <id>.1` does: pick the ask by its handle, answer it.
    const { exec } = await ops.pickAsk({ runId: id, key: '1', ask: 1 }, 'approve');
    const done = await ops.answer(exec, {
      input: { verdict: 'approved', message: null },
      channel: 'cli',
      responder: 'ann',
    });
    expect(done.answered).toMatchObject({ handle: `${id}.1`, verdict: 'approved', responder: 'ann' });
    expect(done.handedTo).toBeNull();
    expect(calls).toEqual(['getRun', 'openExecutions', 'getAnswer', 'recordAnswer']);
  });

  it('answering by handle in one call reads the same', async () => {
    const { id, ops, calls } = await waiting();
    await ops.answerHandle({
      handle: `${id}.1`,
      input: { status: 'CONTINUE', message: null },
      channel: 'web',
      responder: 'ann',
    });
    expect(calls).toEqual(['getRun', 'openExecutions', 'getAnswer', 'recordAnswer']);
  });

  it('then resumed here (core resumeAfterAnswer): the answer read the run once; the rest are the driver taking and checking it', async () => {
    const { id, ops, calls } = await waiting();
    const { exec, view } = await ops.pickAsk({ runId: id, key: null, ask: null }, 'approve');
    expect(view.run.id).toBe(id);
    const { handedTo } = await ops.answer(exec, {
      input: { verdict: 'approved', message: null },
      channel: 'cli',
      responder: 'ann',
    });
    expect(count(calls, 'getRun')).toBe(1);
    const answering = calls.length;
    expect(await ops.resumeAfterAnswer(id, handedTo, { wait: false })).toEqual({
      runId: id,
      outcome: { status: 'completed', result: true },
    });
    // The driver's own reads (take the run, look for a stop, see it ended): at most four, none of them the answer's.
    expect(count(calls.slice(answering), 'getRun')).toBeLessThanOrEqual(4);
    expect(calls.slice(answering)).not.toContain('recordAnswer');
  });

  it('an agent never answers (SHOP_AGENT): refused with nothing recorded, by handle before anything is read', async () => {
    const { id, ops, calls, f, store } = await waiting();
    const { exec } = await ops.pickAsk({ runId: id, key: '1', ask: 1 }, 'approve');
    calls.length = 0;
    const agent = shopOperations({ ...f.world.ports, store }, findProject(f.dir, {}), {
      agentStep: 'SHOP_AGENT=coder',
    });
    const approve = {
      input: { verdict: 'approved' as const, message: null },
      channel: 'cli' as const,
      responder: 'coder',
    };
    await expect(agent.answer(exec, approve, 'shop approve')).rejects.toThrow(
      'shop approve answers for a person and cannot run inside an agent step (SHOP_AGENT=coder); agents report with shop report',
    );
    await expect(agent.answerHandle({ ...approve, handle: `${id}.1` })).rejects.toThrow(
      /cannot run inside an agent step/,
    );
    expect(() => agent.mayAnswer('shop tui')).toThrow(/^shop tui answers for a person/);
    expect(await f.world.store.listAnswers(id)).toEqual([]);
    expect(calls).toEqual([]);
  });
});
