import { afterEach, describe, expect, it } from 'vitest';
import { FLOW_PATH, newFlow } from './testing/flow.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

const flow = (body: string) => `function workflow(prompt)\n${body}\nend\n`;

/** Starts `before`, drives it to its wait, swaps in `after` and drives again. */
async function changed(before: string, after: string) {
  const f = newFlow('shop-match-');
  worlds.push(f.world);
  const id = await f.start(flow(before));
  expect((await f.drive(id)).status).toBe('waiting_human');
  const invoked = f.world.runner.count();
  f.world.workflows.set(FLOW_PATH, flow(after));
  const outcome = await f.drive(id);
  expect(f.world.runner.count()).toBe(invoked);
  // The log stays as it was: restoring the workflow resumes.
  f.world.workflows.set(FLOW_PATH, flow(before));
  expect((await f.drive(id)).status).toBe('waiting_human');
  return outcome as { status: string; reason?: string };
}

const reason = async (before: string, after: string) => {
  const o = await changed(before, after);
  expect(o.status).toBe('failed');
  return o.reason!;
};

describe('replay matching catches every changed call', () => {
  it('a changed prompt of a completed run() — both prompts named', async () => {
    expect(
      await reason('run("coder", "build the cart")\npause("Ship?")', 'run("coder", "build the shop")\npause("Ship?")'),
    ).toBe(
      'non-determinism at call 1: the log recorded run("coder") with prompt "build the cart" but the workflow now calls run("coder") with prompt "build the shop"; ' +
        'the workflow changed since this run started — restore it, guard the change with patched(), or start a new run',
    );
  });

  it('changed run() options', async () => {
    expect(
      await reason(
        'run("coder", { prompt = "x", model = "opus" })\npause("Ship?")',
        'run("coder", { prompt = "x", model = "haiku" })\npause("Ship?")',
      ),
    ).toMatch(
      /^non-determinism at call 1: the log recorded run\("coder"\) with options \{"prompt":"x","model":"opus"\} but the workflow now calls run\("coder"\) with options \{"prompt":"x","model":"haiku"\}/,
    );
  });

  it('another agent at the same key', async () => {
    expect(await reason('run("coder")\npause("Ship?")', 'run("reviewer")\npause("Ship?")')).toMatch(
      /^non-determinism at call 1: the log recorded run\("coder"\) but the workflow now calls run\("reviewer"\);/,
    );
  });

  it('a changed decision spec of the pause it waits on', async () => {
    const before = 'pause{ message = "Ship?", decisions = { { id = "ok", type = "approval", prompt = "OK?" } } }';
    const after = 'pause{ message = "Ship?", decisions = { { id = "ok", type = "text", prompt = "Why?" } } }';
    expect(await reason(before, after)).toMatch(
      /^non-determinism at call 1: the log recorded pause\("Ship\?"\) with decisions \[.*"approval".*\] but the workflow now calls pause\("Ship\?"\) with decisions \[.*"text".*\]/,
    );
  });

  it('a changed sh() command', async () => {
    expect(await reason('sh("make test")\npause("Ship?")', 'sh("make check")\npause("Ship?")')).toMatch(
      /^non-determinism at call 1: the log recorded sh\("make test"\) but the workflow now calls sh\("make check"\)/,
    );
  });

  it('a parallel with another number of branches', async () => {
    const before = 'parallel(function() run("coder") end, function() pause("Ship?") end)';
    const after = 'parallel(function() run("coder") end, function() pause("Ship?") end, function() end)';
    expect(await reason(before, after)).toMatch(
      /^non-determinism at call 1: the log recorded parallel\(2 branches\) but the workflow now calls parallel\(3 branches\)/,
    );
  });

  it('a script that now returns before the call it waits on', async () => {
    expect(await reason('run("coder")\npause("Ship?")\nreturn 1', 'run("coder")\nreturn 2')).toMatch(
      /^non-determinism at call 2: the log recorded pause\("Ship\?"\) but the workflow now returns before reaching it;/,
    );
  });

  it('a script that now raises before a recorded call', async () => {
    expect(await reason('run("coder")\npause("Ship?")', 'error("new bug")')).toMatch(
      /^non-determinism at call 1: the log recorded run\("coder"\) but the workflow now ends before reaching it;/,
    );
  });
});

describe('patched()', () => {
  const v1 = 'run("coder", "a")\nlocal go = pause("Go?")\nreturn run("coder", "b").status';
  const v2 =
    'run("coder", "a")\nlocal go = pause("Go?")\nif patched("lint") then run("reviewer", "lint") end\nreturn run("coder", "b").status';

  it('is false replaying a run recorded before the patch, true on a new run and on a replay that reaches it live', async () => {
    // An old run that got past the patch point before the patch existed.
    const old = newFlow('shop-patch-');
    worlds.push(old.world);
    const early = 'run("coder", "a")\nlocal go = pause("Go?")\nrun("coder", "b")\nreturn pause("Done?").continue';
    const late =
      'run("coder", "a")\nlocal go = pause("Go?")\nif patched("lint") then run("reviewer", "lint") end\nrun("coder", "b")\nreturn pause("Done?").continue';
    const id = await old.start(flow(early));
    await old.drive(id);
    await answer(old.world, id, '2');
    expect(await old.drive(id)).toMatchObject({ status: 'waiting_human', execution: { key: '4' } });
    old.world.workflows.set(FLOW_PATH, flow(late));
    await answer(old.world, id, '4');
    expect(await old.drive(id)).toEqual({ status: 'completed', result: true });
    expect(old.world.runner.count('reviewer')).toBe(0);

    // A run suspended before the patch point reaches it live: the new code path.
    const mid = newFlow('shop-patch-');
    worlds.push(mid.world);
    const id2 = await mid.start(flow(v1));
    await mid.drive(id2);
    mid.world.workflows.set(FLOW_PATH, flow(v2));
    await answer(mid.world, id2, '2');
    expect(await mid.drive(id2)).toEqual({ status: 'completed', result: 'DONE' });
    expect(mid.world.runner.count('reviewer')).toBe(1);
    expect((await mid.world.store.loadExecutions(id2)).map((e) => [e.key, e.kind])).toEqual([
      ['1', 'run'],
      ['2', 'pause'],
      ['3', 'patch'],
      ['4', 'run'],
      ['5', 'run'],
    ]);
  });

  it('a new run records the marker and replays it as true', async () => {
    const f = newFlow('shop-patch-');
    worlds.push(f.world);
    const id = await f.start(
      flow(
        v2.replace('return run("coder", "b").status', 'local again = pause("Again?")\nreturn run("coder", "b").status'),
      ),
    );
    await f.drive(id);
    await answer(f.world, id, '2');
    expect(await f.drive(id)).toMatchObject({ status: 'waiting_human', execution: { key: '5' } });
    await answer(f.world, id, '5');
    expect(await f.drive(id)).toEqual({ status: 'completed', result: 'DONE' });
    expect(f.world.runner.count('reviewer')).toBe(1);
  });
});

async function answer(world: ScriptedWorld, id: number, key: string) {
  const exec = (await world.store.getExecution(id, key))!;
  await world.store.recordAnswer({
    ask: exec.ask,
    verdict: null,
    decisions: null,
    runId: id,
    key,
    status: 'CONTINUE',
    message: null,
    responder: 'ann',
    channel: 'cli',
  });
}
