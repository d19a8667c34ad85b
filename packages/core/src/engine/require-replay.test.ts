import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { driveRun } from './drive-run.js';
import { newFlow } from './testing/flow.js';
import { ScriptedRunner, type Script } from './testing/scripted-runner.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

/**
 * Modules (require) in a driven run: their host calls are the calling thread's, so a run that
 * loads modules at the top of its file and inside parallel branches replays exactly; and a
 * module is one of the run's rule files — an agent step that edits it holds the run.
 */
const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

function setup(script: Script = {}, modules: Record<string, string> = {}) {
  const flow = newFlow('shop-require-', script);
  worlds.push(flow.world);
  for (const [file, source] of Object.entries(modules)) flow.world.modules.set(file, source);
  const answer = async (id: number, key: string, status = 'CONTINUE') => {
    const exec = (await flow.world.store.getExecution(id, key))!;
    return flow.world.store.recordAnswer({
      ask: exec.ask,
      verdict: null,
      decisions: null,
      runId: id,
      key,
      status,
      message: 'ok',
      responder: 'ann',
      channel: 'cli',
    });
  };
  const keys = async (id: number) =>
    (await flow.world.store.loadExecutions(id)).map((e) => `${e.key} ${e.kind} ${e.status}`).sort();
  return { ...flow, answer, keys };
}

const STEPS =
  'local M = {}\nfunction M.ask(q) return pause(q).status end\nfunction M.finish(a, b) return a .. "/" .. b .. "/" .. run("coder", "finish").summary end\nreturn M\n';
// Its top-level code makes a call: in the branch that first requires it.
const REVIEW =
  'local code = sh("git status").code\nlocal M = {}\nfunction M.twice(x)\n  run("reviewer", x)\n  return run("reviewer", x .. "!").summary .. code\nend\nreturn M\n';
const FLOW = `local steps = require("steps")
function workflow(prompt)
  local a, b = parallel(
    function() return require("review").twice("a") end,
    function() return steps.ask("B?") end)
  return steps.finish(a, b)
end
`;

describe('a module in a driven run', () => {
  it("loaded at the top and inside a parallel branch: its calls take the thread's keys, and a new driver replays them without running anything again", async () => {
    const { world, start, drive, answer, keys } = setup(
      { reviewer: [{ summary: 'r' }], coder: [{ summary: 'c' }] },
      { 'steps.lua': STEPS, 'review.lua': REVIEW },
    );
    const id = await start(FLOW);
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      waiting: [{ key: '1/2/1', kind: 'pause', waitingFor: 'B?' }],
    });
    expect(await keys(id)).toEqual([
      '1 parallel running',
      '1/1/1 sh completed',
      '1/1/2 run completed',
      '1/1/3 run completed',
      '1/2/1 pause waiting_human',
    ]);

    await answer(id, '1/2/1');
    // A new driver: a new VM loads the modules again and replays every call from the log.
    expect(await drive(id)).toEqual({ status: 'completed', result: 'r0/CONTINUE/c' });
    expect([world.runner.count('reviewer'), world.runner.count('coder'), world.shellCommands.length]).toEqual([
      2, 1, 1,
    ]);
    expect(await keys(id)).toEqual([
      '1 parallel completed',
      '1/1/1 sh completed',
      '1/1/2 run completed',
      '1/1/3 run completed',
      '1/2/1 pause completed',
      '2 run completed',
    ]);
  });

  it('a module changed between steps so its calls differ is a non-determinism at its key, like the workflow file', async () => {
    const { world, start, drive, answer } = setup(
      { reviewer: [{ summary: 'r' }] },
      { 'steps.lua': STEPS, 'review.lua': REVIEW },
    );
    const id = await start(FLOW);
    expect(await drive(id)).toMatchObject({ status: 'waiting_human' });
    world.modules.set('review.lua', REVIEW.replace('run("reviewer", x)', 'run("coder", x)'));
    await answer(id, '1/2/1');
    expect(await drive(id)).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^non-determinism at call 1\/1\/2: the log recorded run\("reviewer"/),
    });
  });
});

describe("a module is one of the run's rule files", () => {
  const DEPLOY =
    'local ship = require("ship")\nfunction workflow(prompt)\n  run("coder", "prepare")\n  return ship.it()\nend\n';
  const SHIP = 'return { it = function() return run("deployer", "ship it").summary end }\n';

  it('an agent that edits a module the run loads holds it; resume refuses until the module is back; then it goes on without running the agent again', async () => {
    const { world, start, drive } = setup({}, { 'ship.lua': SHIP });
    world.agents.set('deployer', {});
    world.runner = new ScriptedRunner({
      coder: [
        {
          summary: 'ready',
          during: () => world.modules.set('ship.lua', 'return { it = function() return "skipped" end }\n'),
        },
      ],
      deployer: [{ summary: 'shipped' }],
    });
    world.ports.runner = world.runner;
    const id = await start(DEPLOY);
    const why = `workflows/lib/ship.lua changed during step ${id}.1 (coder); check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})`;
    expect(await drive(id)).toEqual({ status: 'failed', exitCode: 1, reason: why });
    expect((await world.store.getRun(id))!.held).toMatchObject({
      key: '1',
      agent: 'coder',
      files: [{ path: 'workflows/lib/ship.lua' }],
    });
    await expect(drive(id)).rejects.toThrow(ConflictError);
    expect(world.runner.count('deployer')).toBe(0);

    world.modules.set('ship.lua', SHIP);
    expect(await drive(id)).toEqual({ status: 'completed', result: 'shipped' });
    expect([world.runner.count('coder'), world.runner.count('deployer')]).toEqual([1, 1]);
  });

  it('a person accepts the edited module: the run goes on under it', async () => {
    const { world, start, drive } = setup({}, { 'ship.lua': SHIP });
    world.runner = new ScriptedRunner({
      coder: [
        {
          summary: 'ready',
          during: () => world.modules.set('ship.lua', 'return { it = function() return "by hand" end }\n'),
        },
      ],
    });
    world.ports.runner = world.runner;
    const id = await start(DEPLOY);
    expect(await drive(id)).toMatchObject({ status: 'failed' });
    expect(await driveRun(world.ports, id, { wait: false, acceptChanges: { by: 'ann', channel: 'cli' } })).toEqual({
      status: 'completed',
      result: 'by hand',
    });
  });

  it('a new module file made during a step holds the run too (it could be required later)', async () => {
    const { world, start, drive } = setup({}, { 'ship.lua': SHIP });
    world.runner = new ScriptedRunner({
      coder: [{ summary: 'ready', during: () => world.modules.set('extra.lua', 'return 1\n') }],
    });
    world.ports.runner = world.runner;
    const id = await start(DEPLOY);
    expect(await drive(id)).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^workflows\/lib\/extra\.lua \(new\) changed during step \d+\.1 \(coder\)/),
    });
  });
});
