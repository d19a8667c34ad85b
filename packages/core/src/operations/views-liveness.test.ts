import { afterEach, describe, expect, it } from 'vitest';
import { createRun } from '../engine/drive-run.js';
import type { Ownership } from '../engine/ownership.js';
import { FLOW_PATH, newFlow } from '../engine/testing/flow.js';
import type { ScriptedWorld } from '../engine/testing/scripted-ports.js';
import { findProject } from '../project/project.js';
import { shopOperations } from './shop-operations.js';

const worlds: ScriptedWorld[] = [];
const owners: Ownership[] = [];
afterEach(async () => {
  for (const o of owners.splice(0)) await o.release(false);
  for (const w of worlds.splice(0)) w.store.close();
});

/**
 * A run held by a live driver, read through the operations of a store whose clock is years
 * behind this machine's (the scripted world's clock): a lease is judged by the store's clock,
 * so every view calls the run "running" — none may judge it by the machine's and call it
 * interrupted.
 */
async function heldRun() {
  const f = newFlow('shop-views-live-');
  worlds.push(f.world);
  f.world.workflows.set(FLOW_PATH, 'function workflow(p)\n  return p\nend\n');
  const { run, owner } = await createRun(f.world.ports, {
    spec: 'flow',
    workflowPath: FLOW_PATH,
    prompt: 'the task',
    workspace: f.dir,
    actor: 'tester',
  });
  owners.push(owner);
  expect(f.world.clock.t).toBeLessThan(Date.now() - f.world.ports.leaseMs);
  const ops = shopOperations(f.world.ports, findProject(f.dir, {}), { agentStep: null });
  return { ...f, id: run.id, ops };
}

describe('views judge a lease by the store clock', () => {
  it('list, status, log and an action show a held run as running while its lease lasts by the store clock', async () => {
    const { ops, id } = await heldRun();
    const listed = await ops.runs({});
    expect(listed.rows.map((r) => [r.id, r.status, r.driver_gone_since])).toEqual([[id, 'running', null]]);
    expect((await ops.runs({ status: 'running' })).total).toBe(1);
    expect((await ops.runs({ status: 'interrupted' })).total).toBe(0);
    expect(await ops.runDetail(id)).toMatchObject({ status: 'running', driver_gone_since: null });
    expect((await ops.log(id)).run).toMatchObject({ status: 'running', driver_gone_since: null });
    expect((await ops.runView(id)).look).toEqual({ status: 'running', goneSince: null });
    expect(await ops.action({ command: 'resume', runId: id, answered: null, exitCode: 0 })).toMatchObject({
      status: 'running',
    });
    await expect(ops.pickAsk({ runId: id, key: null, ask: null }, 'approve')).rejects.toThrow(
      /not waiting for a person \(it is running\)/,
    );
  });

  it('shows it interrupted once the store clock passes the lease, since its last write', async () => {
    const { ops, id, world } = await heldRun();
    const updatedAt = (await world.store.getRun(id))!.updatedAt;
    world.clock.t += world.ports.leaseMs + 1;
    expect(await ops.runDetail(id)).toMatchObject({
      status: 'interrupted',
      driver_gone_since: new Date(updatedAt).toISOString(),
    });
    expect((await ops.runs({ status: 'interrupted' })).rows.map((r) => r.id)).toEqual([id]);
    await expect(ops.pickAsk({ runId: id, key: null, ask: null }, 'approve')).rejects.toThrow(
      /interrupted: its driver is gone since/,
    );
  });
});
