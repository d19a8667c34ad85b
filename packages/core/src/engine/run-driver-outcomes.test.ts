import { afterEach, describe, expect, it } from 'vitest';
import { createRun, driveRun } from './drive-run.js';
import { ScriptedRunner, type Script } from './testing/scripted-runner.js';
import { scriptedWorld, type ScriptedWorld } from './testing/scripted-ports.js';
import { tempDir } from '../testing/temp-dir.js';

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

/** Drives `body` (the inside of workflow(prompt)) once against the scripted agents. */
async function runFlow(
  body: string,
  script: Script = {},
  opts: { wait?: boolean; prepare?: (w: ScriptedWorld) => void } = {},
) {
  const dir = tempDir('shop-outcome-');
  const world = scriptedWorld(dir, new ScriptedRunner(script));
  worlds.push(world);
  opts.prepare?.(world);
  world.workflows.set('/p/flow.lua', `function workflow(prompt)\n${body}\nend\n`);
  const { run: created, owner } = await createRun(world.ports, {
    spec: 'flow',
    workflowPath: '/p/flow.lua',
    prompt: 'task',
    workspace: dir,
    actor: 't',
  });
  const id = created.id;
  const outcome = await driveRun(world.ports, id, { wait: opts.wait ?? false }, owner);
  const run = (await world.store.getRun(id))!;
  const executions = await world.store.loadExecutions(id);
  return { world, id, outcome, run, executions };
}

describe('NEEDS_HUMAN', () => {
  const asks = { coder: [{ status: 'NEEDS_HUMAN', reason: 'which database?', awaiting: 'approval' }] };

  it('suspends the run by default, recording the question and its kind', async () => {
    const { outcome, run, executions } = await runFlow('return run("coder").status', asks);
    expect(outcome).toMatchObject({
      status: 'waiting_human',
      execution: { key: '1', waitingFor: 'which database?', awaiting: 'approval' },
    });
    expect(run.status).toBe('waiting_human');
    expect(executions[0].status).toBe('waiting_human');
  });

  it('is returned to the script with human=false', async () => {
    const { outcome, run } = await runFlow(
      'local r = run("coder", { human = false })\nreturn r.status .. ": " .. r.reason',
      asks,
    );
    expect(outcome).toEqual({ status: 'completed', result: 'NEEDS_HUMAN: which database?' });
    expect(run.status).toBe('completed');
  });

  it('is returned to the script when the agent or config{} turns escalation off', async () => {
    const byAgent = await runFlow('return run("coder").status', asks, {
      prepare: (w) => w.agents.set('coder', { human: false }),
    });
    expect(byAgent.outcome).toEqual({ status: 'completed', result: 'NEEDS_HUMAN' });
    const byConfig = await runFlow('config{ human_escalation = false }\nreturn run("coder").status', asks);
    expect(byConfig.outcome).toEqual({ status: 'completed', result: 'NEEDS_HUMAN' });
  });

  it("says an agent finished only once what it reported is recorded: a person acting on its ask's line finds the ask", async () => {
    const seen: Promise<unknown>[] = [];
    await runFlow('return run("coder").status', asks, {
      prepare: (w) => {
        const notify = w.ports.notifier.notify.bind(w.ports.notifier);
        w.ports.notifier = {
          notify: (n) => {
            if (n.type === 'agent_finished') seen.push(w.store.getExecution(1, n.key).then((e) => e?.status));
            notify(n);
          },
        };
      },
    });
    expect(await Promise.all(seen)).toEqual(['waiting_human']);
  });

  it('a live --wait driver resumes in place when the answer arrives', async () => {
    const { outcome, world } = await runFlow('local r = run("coder")\nreturn r.status .. " by " .. r.responder', asks, {
      wait: true,
      prepare: (w) => {
        w.signals.onNext = async () => {
          w.signals.onNext = null;
          await w.store.recordAnswer({
            ask: 1,
            verdict: null,
            decisions: null,
            runId: 1,
            key: '1',
            status: 'DONE',
            message: 'use postgres',
            responder: 'ann',
            channel: 'cli',
          });
        };
      },
    });
    expect(outcome).toEqual({ status: 'completed', result: 'DONE by ann' });
    expect(world.notices.map((n) => n.type)).toEqual(['agent_started', 'agent_finished', 'waiting', 'resumed']);
    expect(world.runner.count()).toBe(1);
  });
});

describe('statuses', () => {
  const review = 'return run("reviewer", { statuses = { "APPROVED", "CHANGES_REQUESTED" } }).status';

  it('passes an allowed status to the script', async () => {
    const { outcome } = await runFlow(review, { reviewer: [{ status: 'CHANGES_REQUESTED' }] });
    expect(outcome).toEqual({ status: 'completed', result: 'CHANGES_REQUESTED' });
  });

  it('fails the run on any other status, naming it and the allowed ones', async () => {
    const { outcome, run, executions } = await runFlow(review, { reviewer: [{ status: 'LGTM' }] });
    const reason = 'agent reviewer reported LGTM; the workflow allows APPROVED, CHANGES_REQUESTED';
    expect(outcome).toEqual({ status: 'failed', reason, exitCode: 1 });
    expect(run).toMatchObject({ status: 'failed', reason });
    expect(executions[0]).toMatchObject({ status: 'failed', error: reason });
  });
});

describe('agent failures fail the run with the message', () => {
  it('Claude is_error, keeping the cost it reported', async () => {
    const { outcome, executions } = await runFlow('run("coder")', {
      coder: [{ error: 'claude reported an error: API overloaded', costUsd: 0.02 }],
    });
    expect(outcome).toEqual({ status: 'failed', reason: 'claude reported an error: API overloaded', exitCode: 1 });
    expect(executions[0]).toMatchObject({
      status: 'failed',
      error: 'claude reported an error: API overloaded',
      costUsd: 0.02,
    });
  });

  it('a timeout', async () => {
    const { outcome, run } = await runFlow('run("coder", { timeout = 1 })', {
      coder: [{ error: 'agent timed out after 1s' }],
    });
    expect(outcome).toMatchObject({ status: 'failed', reason: 'agent timed out after 1s' });
    expect(run.reason).toBe('agent timed out after 1s');
  });

  it('no signal, with exit 0 (DONE is not presumed) or another code', async () => {
    const quiet = await runFlow('run("coder")', { coder: [{ via: 'none' }] });
    expect(quiet.outcome).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(
        /^agent coder ended without a signal(; its last words: .+)? \(its output: .*1\.coder\.1\.stdout\.log\)$/,
      ),
    });
    const crashed = await runFlow('run("coder")', { coder: [{ via: 'none', exitCode: 3 }] });
    expect(crashed.outcome).toMatchObject({
      status: 'failed',
      reason: expect.stringContaining('agent coder exited with code 3 without a signal'),
    });
  });

  it('a malformed signal file, naming it', async () => {
    const { outcome, executions } = await runFlow('run("coder")', { coder: [{ raw: '{"status": "DO' }] });
    expect(outcome).toMatchObject({
      status: 'failed',
      reason: `agent coder wrote an invalid signal ${executions[0].signalPath}: not valid JSON (half-written or malformed)`,
    });
  });

  it('an unknown agent fails the run (exit 1: the run failed; "not found" is for a run id)', async () => {
    const { outcome } = await runFlow('run("ghost")');
    expect(outcome).toMatchObject({
      status: 'failed',
      exitCode: 1,
      reason: 'unknown agent "ghost" (found: coder, reviewer)',
    });
  });
});

describe('other endings', () => {
  it('the <promise> fallback completes a step', async () => {
    const { outcome } = await runFlow('local r = run("coder")\nreturn r.status .. ": " .. r.summary', {
      coder: [{ via: 'promise', summary: 'shipped' }],
    });
    expect(outcome).toEqual({ status: 'completed', result: 'DONE: shipped' });
  });

  it('stuck(reason) ends the run stuck, after recording the lines logged before it', async () => {
    const { outcome, run, world, id } = await runFlow('log("giving up")\nstuck("tests never pass")\nrun("coder")');
    expect(outcome).toEqual({ status: 'stuck', reason: 'tests never pass' });
    expect(run).toMatchObject({ status: 'stuck', reason: 'tests never pass' });
    expect(world.runner.count()).toBe(0);
    const events = await world.store.listEvents(id);
    expect(events.map((e) => e.type)).toEqual(['run_started', 'log', 'stuck']);
  });

  it('a Lua error fails the run with file:line', async () => {
    const { outcome, run } = await runFlow('local n = nil\nreturn n + 1');
    expect(outcome).toMatchObject({
      status: 'failed',
      exitCode: 1,
      reason: expect.stringMatching(/^flow\.lua:3: attempt to perform arithmetic on a nil value/),
    });
    expect(run.status).toBe('failed');
  });

  it('config{} with an unknown key fails the run naming the key', async () => {
    const { outcome } = await runFlow('config{ human_timout = 60 }');
    expect(outcome).toMatchObject({
      status: 'failed',
      reason: expect.stringMatching(/^flow\.lua:2: config: unknown key 'human_timout' \(known: human_escalation/),
    });
  });
});
