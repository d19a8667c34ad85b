import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crashingAfter, FLOW_PATH, newFlow } from './testing/flow.js';
import type { Script } from './testing/scripted-runner.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

function setup(script: Script = {}) {
  const { world, start, drive } = newFlow('shop-driver-', script);
  worlds.push(world);
  const answer = (id: number, key: string, status = 'CONTINUE') =>
    world.store.recordAnswer({
      ask: 1,
      verdict: null,
      decisions: null,
      runId: id,
      key,
      status,
      message: null,
      responder: 'ann',
      channel: 'cli',
    });
  const logEvents = async (id: number) =>
    (await world.store.listEvents(id)).filter((e) => e.type === 'log').map((e) => e.data!.message);
  return { world, start, drive, answer, logEvents };
}

describe('replay', () => {
  it('answers completed calls from the log without invoking the runner or the shell again', async () => {
    const { world, start, drive, answer } = setup({ coder: [{ summary: 'first' }, { summary: 'SECOND' }] });
    const id = await start(`function workflow(prompt)
      local a = run("coder", "step one")
      local s = sh("make")
      local t = now()
      local p = pause("Ship it?")
      return { a.summary, a.session_id, s.stdout, t, p.continue, prompt }
    end`);
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      execution: { key: '4', kind: 'pause', waitingFor: 'Ship it?' },
    });
    expect(world.runner.count()).toBe(1);

    await answer(id, '4');
    world.clock.t += 60_000;
    const notices = world.notices.length;
    expect(await drive(id)).toEqual({
      status: 'completed',
      result: ['first', 'session-1', 'ran make #1', 1_700_000_000, true, 'the task'],
    });
    expect(world.runner.count()).toBe(1);
    expect(world.shellCommands).toEqual(['make']);
    expect(world.notices.slice(notices).filter((n) => n.type === 'agent_started')).toEqual([]);
    expect((await world.store.loadExecutions(id)).map((e) => [e.key, e.kind, e.status])).toEqual([
      ['1', 'run', 'completed'],
      ['2', 'sh', 'completed'],
      ['3', 'now', 'completed'],
      ['4', 'pause', 'completed'],
    ]);
  });

  it('a changed workflow fails with a non-determinism error naming the key and both calls, leaving the log intact', async () => {
    const { world, start, drive } = setup();
    const original = 'function workflow(p)\n  run("coder")\n  return pause("Ship it?").continue\nend';
    const id = await start(original);
    expect((await drive(id)).status).toBe('waiting_human');

    world.workflows.set(FLOW_PATH, 'function workflow(p)\n  run("reviewer")\n  return pause("Ship it?").continue\nend');
    const outcome = await drive(id);
    expect(outcome).toMatchObject({ status: 'failed', exitCode: 1 });
    const reason = (outcome as { reason: string }).reason;
    expect(reason).toMatch(/non-determinism at call 1/);
    expect(reason).toContain('recorded run("coder")');
    expect(reason).toContain('now calls run("reviewer")');
    expect(world.runner.count()).toBe(1);
    expect((await world.store.getRun(id))!).toMatchObject({ status: 'failed', reason });
    // The waiting pause ended with the run (nothing waits on an ended run).
    expect((await world.store.loadExecutions(id)).map((e) => [e.status, e.error])).toEqual([
      ['completed', null],
      ['failed', `the run ended failed: ${reason}`],
    ]);

    // "restore it": the restored workflow replays the recorded calls and goes on, asking again.
    world.workflows.set(FLOW_PATH, original);
    expect((await drive(id)).status).toBe('waiting_human');
    expect(await world.store.getExecution(id, '2')).toMatchObject({ status: 'waiting_human', ask: 2 });
    await world.store.recordAnswer({
      ask: 2,
      verdict: null,
      decisions: null,
      runId: id,
      key: '2',
      status: 'CONTINUE',
      message: null,
      responder: 'ann',
      channel: 'cli',
    });
    expect(await drive(id)).toEqual({ status: 'completed', result: true });
    expect(world.runner.count()).toBe(1);
  });

  it('a running call whose signal is on disk is completed without invoking the agent', async () => {
    const { world, start, drive } = setup({ coder: [{ summary: 'finished before the crash' }] });
    const id = await start(
      'function workflow(p)\n  local r = run("coder")\n  return r.summary .. " / " .. r.session_id\nend',
    );
    world.ports.runner = crashingAfter(world.runner);
    await expect(drive(id)).rejects.toThrow('driver crashed');
    const [exec] = await world.store.loadExecutions(id);
    expect(exec).toMatchObject({ status: 'running', pid: 999_999 });
    expect(existsSync(exec.signalPath!)).toBe(true);

    world.ports.runner = world.runner;
    expect(await drive(id)).toEqual({ status: 'completed', result: 'finished before the crash / session-1' });
    expect(world.runner.count()).toBe(1);
    expect(world.killed).toEqual([999_999]);
  });

  it('a running call without a signal is re-invoked, resuming the same session', async () => {
    const { world, start, drive } = setup({ coder: [{ via: 'none' }, { summary: 'done on resume' }] });
    const id = await start('function workflow(p)\n  return run("coder", "build it").summary\nend');
    world.ports.runner = crashingAfter(world.runner);
    await expect(drive(id)).rejects.toThrow('driver crashed');

    world.ports.runner = world.runner;
    expect(await drive(id)).toEqual({ status: 'completed', result: 'done on resume' });
    const [first, second] = world.runner.invocations;
    expect(first).toMatchObject({ resume: false, sessionId: 'session-1', prompt: 'build it' });
    expect(second).toMatchObject({ resume: true, sessionId: 'session-1' });
    expect(second.prompt).toMatch(/interrupted[\s\S]*build it/);
    expect(second.env.SHOP_SIGNAL_FILE).not.toBe(first.env.SHOP_SIGNAL_FILE);
    expect((await world.store.loadExecutions(id))[0]).toMatchObject({
      status: 'completed',
      attempts: 2,
      signalPath: second.env.SHOP_SIGNAL_FILE,
    });
  });
});

describe('workflow log lines', () => {
  it('are recorded once, however often the run is replayed', async () => {
    const { world, start, drive, answer, logEvents } = setup();
    const id = await start(`function workflow(p)
      log("before")
      run("coder")
      print("between")
      pause("ok?")
      log("after")
    end`);
    await drive(id);
    expect(await logEvents(id)).toEqual(['before', 'between']);
    await drive(id);
    expect(await logEvents(id)).toEqual(['before', 'between']);
    await answer(id, '2');
    const notices = world.notices.length;
    expect((await drive(id)).status).toBe('completed');
    expect(await logEvents(id)).toEqual(['before', 'between', 'after']);
    expect(world.notices.slice(notices).filter((n) => n.type === 'log')).toEqual([
      { type: 'log', message: 'after', key: '' },
    ]);
  });

  it('are looked up on replay only by a run that makes one: a run that logs nothing is resumed without reading its trail', async () => {
    // One project a run: a project's runs share its workflow file.
    for (const [source, reads] of [
      ['function workflow(p)\n  run("coder")\n  return pause("ok?").continue\nend', 0],
      ['function workflow(p)\n  log("hi")\n  return pause("ok?").continue\nend', 1],
    ] as const) {
      const { world, start, drive, logEvents } = setup();
      const id = await start(source);
      await drive(id);
      const counted = vi.spyOn(world.store, 'countLogs');
      expect((await drive(id)).status).toBe('waiting_human');
      expect(counted).toHaveBeenCalledTimes(reads);
      expect(await logEvents(id)).toEqual(reads ? ['hi'] : []);
    }
  });

  it('are not repeated when a failed run is resumed', async () => {
    const { world, start, drive, logEvents } = setup();
    const id = await start('function workflow(p)\n  log("looking for ghost")\n  return run("ghost").status\nend');
    expect(await drive(id)).toMatchObject({
      status: 'failed',
      exitCode: 1,
      reason: expect.stringContaining('unknown agent "ghost"'),
    });
    world.agents.set('ghost', {});
    expect(await drive(id)).toEqual({ status: 'completed', result: 'DONE' });
    expect(await logEvents(id)).toEqual(['looking for ghost']);
  });
});
