import { afterEach, describe, expect, it } from 'vitest';
import { FLOW_PATH, newFlow } from '../engine/testing/flow.js';
import type { ScriptedWorld } from '../engine/testing/scripted-ports.js';
import { dryReplay } from './dry-replay.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

const v1 = 'function workflow(p)\n  run("coder", "build it")\n  log("built")\n  return pause("Ship?").continue\nend\n';

async function suspended() {
  const f = newFlow('shop-dry-');
  worlds.push(f.world);
  const id = await f.start(v1);
  expect((await f.drive(id)).status).toBe('waiting_human');
  const before = JSON.stringify([
    await f.world.store.loadExecutions(id),
    await f.world.store.listEvents(id),
    await f.world.store.getRun(id),
  ]);
  const untouched = async () =>
    expect(
      JSON.stringify([
        await f.world.store.loadExecutions(id),
        await f.world.store.listEvents(id),
        await f.world.store.getRun(id),
      ]),
    ).toBe(before);
  return { ...f, id, untouched };
}

describe('dryReplay (shop replay)', () => {
  it('an unchanged workflow is compatible; nothing is invoked or written', async () => {
    const { world, id, untouched } = await suspended();
    expect(await dryReplay(world.ports, id)).toMatchObject({ compatible: true, problem: null });
    expect(world.runner.count()).toBe(1);
    await untouched();
  });

  it('a changed prompt is named (key, both calls); the run is left as it was', async () => {
    const { world, id, untouched } = await suspended();
    world.workflows.set(FLOW_PATH, v1.replace('build it', 'build it twice'));
    const check = await dryReplay(world.ports, id);
    expect(check.compatible).toBe(false);
    expect(check.problem).toMatch(
      /^non-determinism at call 1: the log recorded run\("coder"\) with prompt "build it" but the workflow now calls run\("coder"\) with prompt "build it twice"/,
    );
    expect(check.nonDeterminism).toEqual({
      key: '1',
      recorded: 'run("coder") with prompt "build it"',
      attempted: 'calls run("coder") with prompt "build it twice"',
    });
    expect((await world.store.getRun(id))!.status).toBe('waiting_human');
    await untouched();
  });

  it('a change guarded by patched() is compatible, and so is another file given as the workflow', async () => {
    const { world, id, untouched } = await suspended();
    const guarded = v1.replace('  return pause', '  if patched("lint") then run("reviewer") end\n  return pause');
    expect(await dryReplay(world.ports, id, guarded)).toMatchObject({ compatible: true });
    expect(await dryReplay(world.ports, id, v1.replace('"Ship?"', '"Ship now?"'))).toMatchObject({
      compatible: false,
      problem: expect.stringMatching(/^non-determinism at call 2: the log recorded pause\("Ship\?"\)/),
    });
    expect(world.runner.count()).toBe(1);
    await untouched();
  });
});
