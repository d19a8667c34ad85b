import { afterEach, describe, expect, it } from 'vitest';
import { ConflictError } from '../errors.js';
import { driveRun } from './drive-run.js';
import { crashingAfter, FLOW_PATH, newFlow } from './testing/flow.js';
import { ScriptedRunner, type Script } from './testing/scripted-runner.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

/**
 * The rules a run obeys are fixed when it starts (its agents' CLI, model, permissions, gates and
 * its workflow's config{}), and a rule file changed while one of the run's own steps ran holds it.
 */
const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

function setup(script: Script = {}) {
  const flow = newFlow('shop-rules-', script);
  worlds.push(flow.world);
  const { world } = flow;
  world.agents.set('deployer', { model: 'sonnet', gates: [{ hold: ['Bash(git push --force*)'], allow: [] }] });
  const answer = (id: number, key: string, status = 'DONE', message: string | null = 'go on') =>
    world.store.recordAnswer({
      ask: 1,
      verdict: null,
      decisions: null,
      runId: id,
      key,
      status,
      message,
      responder: 'ann',
      channel: 'cli',
    });
  const accept = (id: number) =>
    driveRun(world.ports, id, { wait: false, acceptChanges: { by: 'ann', channel: 'cli' } });
  const events = async (id: number, type: string) => (await world.store.listEvents(id)).filter((e) => e.type === type);
  return { ...flow, answer, accept, events };
}

const DEPLOY = `config{ gates = { "Bash(rm -rf *)" } }
function workflow(prompt)
  run("coder", "change the deploy")
  return run("deployer", "ship it").summary
end`;

describe('rules fixed when the run starts', () => {
  it("records every agent's rules and the files' hashes at the start, and config{} at the first load", async () => {
    const { world, start, drive } = setup({ coder: [{ status: 'NEEDS_HUMAN', reason: 'which env?' }] });
    const id = await start(DEPLOY);
    const started = (await world.store.getRun(id))!.rules!;
    expect(Object.keys(started.agents).sort()).toEqual(['coder', 'deployer', 'reviewer']);
    expect(started.agents.deployer).toEqual({
      file: 'agents/deployer.md',
      cli: null,
      model: 'sonnet',
      permission_mode: null,
      allowed_tools: [],
      command: null,
      gates: [{ hold: ['Bash(git push --force*)'], allow: [] }],
    });
    expect(Object.keys(started.files).sort()).toEqual([
      FLOW_PATH,
      'agents/coder.md',
      'agents/deployer.md',
      'agents/reviewer.md',
    ]);
    expect(started.config).toBeNull();
    expect((await drive(id)).status).toBe('waiting_human');
    expect((await world.store.getRun(id))!.rules!.config).toEqual({ gates: [{ hold: ['Bash(rm -rf *)'], allow: [] }] });
  });

  it("a person's edit of an agent's model and gates between steps does not reach the agent: it runs on the recorded rules, said once", async () => {
    const { world, start, drive, answer, events } = setup({
      coder: [{ status: 'NEEDS_HUMAN', reason: 'which env?' }, { summary: 'done' }],
    });
    const id = await start(DEPLOY);
    expect((await drive(id)).status).toBe('waiting_human');
    world.agents.set('deployer', { model: 'opus', instructions: 'You ship, carefully.' });
    world.workflows.set(FLOW_PATH, DEPLOY.replace('config{ gates = { "Bash(rm -rf *)" } }', 'config{}'));
    await answer(id, '1');
    expect(await drive(id)).toMatchObject({ status: 'completed' });
    const deployer = world.runner.invocations.find((i) => i.agent.name === 'deployer')!.agent;
    expect(deployer).toMatchObject({ model: 'sonnet', instructions: 'You ship, carefully.' });
    // Its own gates and the workflow's, as recorded: what reaches Claude Code (SHOP_GATES).
    expect(deployer.gates).toEqual([
      { hold: ['Bash(git push --force*)'], allow: [] },
      { hold: ['Bash(rm -rf *)'], allow: [] },
    ]);
    const run = (await world.store.getRun(id))!;
    expect(run.rules!.differs).toEqual([
      `${FLOW_PATH}: config.gates`,
      'agents/deployer.md: model',
      'agents/deployer.md: gates',
    ]);
    expect((await events(id, 'rules_kept')).map((e) => e.data!.differs)).toEqual([
      [`${FLOW_PATH}: config.gates`],
      ['agents/deployer.md: model', 'agents/deployer.md: gates'],
    ]);
    expect(world.notices.filter((n) => n.type === 'rules_kept')).toHaveLength(2);
  });

  it('an agent defined after the start gets its rules recorded at its first use', async () => {
    const { world, start, drive, answer, events } = setup({
      coder: [{ status: 'NEEDS_HUMAN', reason: 'which env?' }, { summary: 'done' }],
    });
    const id = await start('function workflow(p)\n  run("coder")\n  return run("linter").status\nend');
    expect((await drive(id)).status).toBe('waiting_human');
    world.agents.set('linter', { model: 'haiku' });
    await answer(id, '1');
    expect(await drive(id)).toEqual({ status: 'completed', result: 'DONE' });
    expect((await world.store.getRun(id))!.rules!.agents.linter).toMatchObject({
      model: 'haiku',
      file: 'agents/linter.md',
    });
    expect((await events(id, 'rules_recorded')).map((e) => e.data)).toEqual([
      { agent: 'linter', file: 'agents/linter.md' },
    ]);
  });
});

describe("a rule file changed during one of the run's own steps holds it", () => {
  it('an agent that drops its own gates: the run fails naming the file and the step; its report stays; resume refuses until the file is back', async () => {
    const { world, start, drive, answer } = setup();
    const before = { model: 'sonnet', gates: [{ hold: ['Bash(git push --force*)'], allow: [] }] };
    world.runner = new ScriptedRunner({
      coder: [
        {
          status: 'NEEDS_HUMAN',
          reason: 'ok to ship?',
          during: () => world.agents.set('deployer', { model: 'sonnet' }),
        },
      ],
    });
    world.ports.runner = world.runner;
    const id = await start(DEPLOY);
    const outcome = await drive(id);
    expect(outcome).toEqual({
      status: 'failed',
      exitCode: 1,
      reason: `agents/deployer.md changed during step ${id}.1 (coder); check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})`,
    });
    const run = (await world.store.getRun(id))!;
    expect(run.held).toMatchObject({ key: '1', agent: 'coder', files: [{ path: 'agents/deployer.md' }] });
    // Like a crash right after the agent ended: its call is still running, its report on disk.
    expect(await world.store.getExecution(id, '1')).toMatchObject({ status: 'running' });
    expect(world.runner.count('deployer')).toBe(0);

    await expect(drive(id)).rejects.toThrow(ConflictError);
    await expect(drive(id)).rejects.toThrow(
      `run ${id} is held: agents/deployer.md changed during step ${id}.1 (coder) and is not as before it; check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})`,
    );
    world.agents.set('deployer', before);
    // Back as it was: the hold ends, and the step is completed from its report without running the agent again.
    expect(await drive(id)).toMatchObject({
      status: 'waiting_human',
      execution: { key: '1', waitingFor: 'ok to ship?' },
    });
    expect(world.runner.count('coder')).toBe(1);
    expect((await world.store.getRun(id))!.held).toBeNull();
    await answer(id, '1');
    expect(await drive(id)).toMatchObject({ status: 'completed' });
    expect(world.runner.invocations.find((i) => i.agent.name === 'deployer')!.agent.gates).toEqual([
      { hold: ['Bash(git push --force*)'], allow: [] },
      { hold: ['Bash(rm -rf *)'], allow: [] },
    ]);
    expect(
      (await world.store.listEvents(id))
        .map((e) => e.type)
        .filter((t) => ['files_changed', 'failed', 'hold_cleared', 'retried'].includes(t)),
    ).toEqual(['files_changed', 'failed', 'hold_cleared', 'retried']);
  });

  it('an agent that rewrites its workflow: held; a person accepts, and the run goes on under the files as they are', async () => {
    const { world, start, drive, accept, events } = setup();
    const edited = DEPLOY.replace('config{ gates = { "Bash(rm -rf *)" } }', 'config{}');
    world.runner = new ScriptedRunner({
      coder: [{ summary: 'done', during: () => world.workflows.set(FLOW_PATH, edited) }],
    });
    world.ports.runner = world.runner;
    const id = await start(DEPLOY);
    expect(await drive(id)).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(new RegExp(`^${FLOW_PATH} changed during step ${id}\\.1 \\(coder\\)`)),
    });
    expect(world.runner.count('deployer')).toBe(0);
    expect(await accept(id)).toMatchObject({ status: 'completed' });
    expect(world.runner.count('coder')).toBe(1);
    expect(world.runner.invocations.find((i) => i.agent.name === 'deployer')!.agent.gates).toEqual([
      { hold: ['Bash(git push --force*)'], allow: [] },
    ]);
    expect((await events(id, 'changes_accepted')).map((e) => [e.actor, e.key, e.data!.files])).toEqual([
      ['ann', '1', [FLOW_PATH]],
    ]);
    expect((await world.store.getRun(id))!).toMatchObject({ held: null, rules: { config: {}, differs: [] } });
  });

  it("in parallel branches: the other branch's agent is stopped as when a run fails; the step that saw the change stays running", async () => {
    const { world, start, drive } = setup();
    world.runner = new ScriptedRunner({
      coder: [{ summary: 'done', delayMs: 20, during: () => world.agents.set('deployer', {}) }],
      reviewer: [{ summary: 'slow', delayMs: 5_000 }],
    });
    world.ports.runner = world.runner;
    const id = await start(
      'function workflow(p)\n  return parallel(function() return run("coder") end, function() return run("reviewer") end)\nend',
    );
    expect(await drive(id)).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining(`agents/deployer.md changed during step ${id}.1/1/1 (coder)`),
    });
    expect(world.runner.aborted.map((i) => i.agent.name)).toEqual(['reviewer']);
    expect((await world.store.loadExecutions(id)).map((e) => [e.key, e.status])).toEqual([
      ['1', 'failed'],
      ['1/1/1', 'running'],
      ['1/2/1', 'failed'],
    ]);
    world.agents.set('deployer', { model: 'sonnet', gates: [{ hold: ['Bash(git push --force*)'], allow: [] }] });
    world.runner = new ScriptedRunner({ reviewer: [{ summary: 'reviewed' }] });
    world.ports.runner = world.runner;
    // Restored: the coder's step completes from its report; the stopped reviewer runs again.
    expect(await drive(id)).toEqual({
      status: 'completed',
      result: { status: 'DONE', summary: 'done', session_id: 'session-1' },
    });
    expect([world.runner.count('coder'), world.runner.count('reviewer')]).toEqual([0, 1]);
  });

  it('a sh() command that changes an agent file holds the run; its result is kept, never run again', async () => {
    const { world, start, drive, accept } = setup();
    const id = await start(
      'function workflow(p)\n  local r = sh("npm test")\n  return run("deployer", r.stdout).summary\nend',
    );
    const shell = world.ports.shell;
    world.ports.shell = async (...args) => (world.agents.set('deployer', {}), shell(...args));
    expect(await drive(id)).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining(`agents/deployer.md changed during step ${id}.1 (sh)`),
    });
    expect(await world.store.getExecution(id, '1')).toMatchObject({ status: 'completed' });
    expect(await accept(id)).toMatchObject({ status: 'completed' });
    expect(world.shellCommands).toEqual(['npm test']);
  });

  it('edits between steps hold nothing; a workflow changed under a waiting run with patched() goes on', async () => {
    const { world, start, drive, answer } = setup({
      coder: [{ status: 'NEEDS_HUMAN', reason: 'which env?' }, { summary: 'done' }],
    });
    const id = await start('function workflow(p)\n  run("coder")\n  return "shipped"\nend');
    expect((await drive(id)).status).toBe('waiting_human');
    world.workflows.set(
      FLOW_PATH,
      'function workflow(p)\n  run("coder")\n  if patched("lint") then run("reviewer") end\n  return "shipped"\nend',
    );
    world.agents.set('reviewer', { instructions: 'Lint it.' });
    await answer(id, '1');
    expect(await drive(id)).toEqual({ status: 'completed', result: 'shipped' });
    expect(world.runner.count('reviewer')).toBe(1);
    expect((await world.store.getRun(id))!.held).toBeNull();
  });

  it('a driver that died during the step never looked after it: a rule file changed since the run last saw it holds the run on resume', async () => {
    const { world, start, drive } = setup();
    const inner = new ScriptedRunner({
      coder: [{ summary: 'done', during: () => world.agents.set('deployer', { model: 'opus' }) }],
    });
    world.ports.runner = crashingAfter(inner);
    const id = await start(DEPLOY);
    await expect(drive(id)).rejects.toThrow('driver crashed');
    world.ports.runner = inner;
    const outcome = await drive(id);
    expect(outcome).toMatchObject({
      status: 'failed',
      reason: `agents/deployer.md changed while step ${id}.1 (coder) ran, or since its driver stopped; check the change, then shop resume ${id} --accept-changes (or restore the file and shop resume ${id})`,
    });
    expect((await world.store.getRun(id))!.held).toMatchObject({ key: '1', interrupted: true });
    world.agents.set('deployer', { model: 'sonnet', gates: [{ hold: ['Bash(git push --force*)'], allow: [] }] });
    expect(await drive(id)).toMatchObject({ status: 'completed' });
    expect(inner.count('coder')).toBe(1);
  });
});
