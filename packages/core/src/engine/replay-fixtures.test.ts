import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentInvocation, AgentOutcome, AgentRunner } from '../agents/agent-runner.js';
import { driveRun } from './drive-run.js';
import type { DriveOutcome } from './outcome.js';
import { importHistory, type History } from './testing/import-history.js';
import { ScriptedRunner, type Script } from './testing/scripted-runner.js';
import { scriptedWorld, type ScriptedWorld } from './testing/scripted-ports.js';
import { tempDir } from '../testing/temp-dir.js';

/**
 * Replay against recorded histories (Temporal's "history files"): each fixture is a workflow
 * and the `shop log --json` of a real run of it (the built binary, the stand-in claude; see
 * fixtures/README.md). Imported into a fresh store, the run must replay to exactly what was
 * recorded without any agent invoked for a completed call — so a change to the engine that
 * breaks replay of logs already on people's disks fails here.
 */
const FIXTURES = join(import.meta.dirname, 'fixtures');

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

/** Calls the recorded history completed: invoking an agent for one of them fails the test. */
class GuardedRunner implements AgentRunner {
  readonly forbidden: AgentInvocation[] = [];
  readonly inner: ScriptedRunner;
  constructor(
    private readonly completed: Set<string>,
    script: Script = {},
  ) {
    this.inner = new ScriptedRunner(script);
  }
  get invocations(): AgentInvocation[] {
    return [...this.forbidden, ...this.inner.invocations];
  }
  async invoke(inv: AgentInvocation): Promise<AgentOutcome> {
    const key = inv.env.SHOP_CALL;
    if (this.completed.has(key)) {
      this.forbidden.push(inv);
      throw new Error(`replay invoked agent ${inv.agent.name} for call ${key}, completed in the recorded history`);
    }
    return this.inner.invoke(inv);
  }
}

function load(name: string): { source: string; history: History } {
  return {
    source: readFileSync(join(FIXTURES, `${name}.lua`), 'utf8'),
    history: JSON.parse(readFileSync(join(FIXTURES, `${name}.log.json`), 'utf8')) as History,
  };
}

/**
 * A fresh store holding the fixture's history, and the world to drive it in. Completed runs
 * are imported as they stood just before their end (status running, no result, the ending
 * event left out): driveRun returns an ended run's state at once without replaying anything,
 * whereas a run still running is replayed call by call from its log — and, every recorded
 * call being completed, must reach the end on its own, with the recorded result.
 */
function imported(
  name: string,
  opts: { edit?: (source: string) => string; script?: Script; tweak?: (h: History) => void } = {},
) {
  const { edit, script = {}, tweak } = opts;
  const { source, history } = load(name);
  tweak?.(history);
  const dir = tempDir(`shop-fixture-${name}-`);
  const completed = new Set(history.executions.filter((e) => e.status === 'completed').map((e) => e.key));
  const runner = new GuardedRunner(completed, script);
  const world = scriptedWorld(dir, runner.inner, ['architect', 'coder', 'reviewer', 'deployer']);
  world.ports.runner = runner;
  worlds.push(world);
  const workflowPath = `/project/workflows/${name}.lua`;
  importHistory(join(dir, 'shop.db'), history, {
    workflowPath,
    signalsDir: world.ports.paths.signalsDir,
    reopen: true,
  });
  world.workflows.set(workflowPath, edit ? edit(source) : source);
  const id = history.run.id;
  const drive = () => driveRun(world.ports, id, { wait: false });
  return { history, world, runner, id, drive };
}

type Imported = ReturnType<typeof imported>;

/** What replay must leave as recorded: every call's identity, state, delivery and result. */
const callState = (e: {
  key: string;
  seq: number;
  kind: string;
  fingerprint: string;
  status: string;
  delivered: number | null;
  result: unknown;
  attempts: number;
  ask: number;
}) => ({
  key: e.key,
  seq: e.seq,
  kind: e.kind,
  fingerprint: e.fingerprint,
  status: e.status,
  delivered: e.delivered,
  result: e.result,
  attempts: e.attempts,
  ask: e.ask,
});

async function expectUntouched(f: Imported) {
  expect((await f.world.store.loadExecutions(f.id)).map(callState)).toEqual(f.history.executions.map(callState));
  expect(f.runner.invocations).toEqual([]);
  expect(f.world.shellCommands).toEqual([]);
  expect(f.world.notices.filter((n) => n.type === 'agent_started')).toEqual([]);
}

const waitingKeys = (o: DriveOutcome) => (o.status === 'waiting_human' ? o.waiting.map((e) => e.key) : o);

describe('completed histories replay to the recorded result, invoking nothing', () => {
  // parallel-interleaving: code before a branch's first call ran, live, before any branch got a result.
  it.each(['feature-completed', 'parallel-completed', 'nested-parallel', 'patched', 'parallel-interleaving'])(
    '%s',
    async (name) => {
      const f = imported(name);
      const events = await f.world.store.listEvents(f.id);
      expect(await f.drive()).toEqual({ status: 'completed', result: f.history.run.result });
      await expectUntouched(f);
      expect(await f.world.store.getRun(f.id)).toMatchObject({
        status: 'completed',
        result: f.history.run.result,
        reason: null,
      });
      // The trail gains only the end: no log line repeated, no call restarted or re-answered.
      const after = await f.world.store.listEvents(f.id);
      expect(after.slice(0, events.length)).toEqual(events);
      expect(after.slice(events.length).map((e) => e.type)).toEqual(['completed']);
    },
  );

  it('parallel-completed: the shared table comes out in the recorded delivery order, not argument order', () => {
    const { history } = load('parallel-completed');
    const result = history.run.result as { order: string[] };
    // The fixture is only meaningful if results came in out of argument order.
    expect(result.order).not.toEqual(['architect', 'pause', 'coder 1', 'coder 2', 'joined']);
    const byDelivery = history.executions
      .filter((e) => e.delivered != null)
      .sort((a, b) => a.delivered! - b.delivered!)
      .map((e) => e.key);
    const noteOf: Record<string, string> = {
      '1/1/1': 'architect',
      '1/2/1': 'pause',
      '1/3/1': 'coder 1',
      '1/3/2': 'coder 2',
    };
    expect(result.order).toEqual([...byDelivery.map((k) => noteOf[k]), 'joined']);
  });
});

describe('the seed', () => {
  it('is kept: each thread draws as recorded; under another seed the same log replays to other draws', async () => {
    const recorded = load('nested-parallel').history.run.result as { dice: Record<string, number> };
    expect(Object.keys(recorded.dice).sort()).toEqual(['architect', 'back', 'front', 'main']);
    const other = imported('nested-parallel', { tweak: (h) => void (h.run.seed += 1) });
    const outcome = await other.drive();
    expect(outcome.status).toBe('completed');
    const dice = (outcome as { result: { dice: Record<string, number> } }).result.dice;
    for (const thread of Object.keys(recorded.dice)) expect(dice[thread], thread).not.toBe(recorded.dice[thread]);
    expect(other.runner.invocations).toEqual([]);
  });
});

describe('waiting histories replay to waiting_human on exactly the recorded calls, invoking nothing', () => {
  it.each([
    ['feature-waiting', ['6']],
    ['parallel-waiting', ['1/1/1', '1/3/1']],
    // A branch failed (caught by pcall) and its sibling was cancelled before the pause.
    ['parallel-caught-error', ['2']],
  ])('%s', async (name, keys) => {
    const f = imported(name);
    const recorded = f.history.executions.filter((e) => e.status === 'waiting_human').map((e) => e.key);
    expect(recorded).toEqual(keys);
    const outcome = await f.drive();
    expect(waitingKeys(outcome)).toEqual(keys);
    await expectUntouched(f);
    expect(await f.world.store.getRun(f.id)).toMatchObject({ status: 'waiting_human', owner: null });
  });

  it('feature-waiting, answered: only the deployer runs, and the run completes as the recorded one did', async () => {
    // The deployer says what the stand-in said when the completed fixture was recorded.
    const f = imported('feature-waiting', {
      script: { deployer: [{ summary: 'deployer finished: Deploy: add a login page' }] },
    });
    await f.world.store.recordAnswer({
      runId: f.id,
      key: '6',
      ask: 1,
      verdict: 'approved',
      status: null,
      message: 'ship it',
      decisions: null,
      responder: 'ann',
      channel: 'cli',
    });
    expect(await f.drive()).toEqual({ status: 'completed', result: load('feature-completed').history.run.result });
    expect(f.runner.forbidden).toEqual([]);
    expect(f.runner.invocations.map((i) => [i.agent.name, i.env.SHOP_CALL, i.prompt, i.resume])).toEqual([
      ['deployer', '7', 'Deploy: add a login page', false],
    ]);
  });

  it('parallel-waiting, one ask answered: still waiting, on the other one only', async () => {
    const f = imported('parallel-waiting');
    await f.world.store.recordAnswer({
      runId: f.id,
      key: '1/3/1',
      ask: 1,
      verdict: 'approved',
      status: null,
      message: null,
      decisions: null,
      responder: 'ann',
      channel: 'cli',
    });
    expect(waitingKeys(await f.drive())).toEqual(['1/1/1']);
    expect(f.runner.invocations).toEqual([]);
    expect(await f.world.store.getExecution(f.id, '1/3/1')).toMatchObject({
      status: 'completed',
      delivered: 2,
      result: { status: 'APPROVED' },
    });
  });
});

describe('a changed workflow fails with a non-determinism error naming the call', () => {
  async function expectMismatch(f: Imported, key: string, recorded: string, now: string) {
    const outcome = await f.drive();
    expect(outcome).toMatchObject({ status: 'failed', exitCode: 1 });
    const reason = (outcome as { reason: string }).reason;
    expect(reason).toMatch(new RegExp(`^non-determinism at call ${key.replaceAll('/', '\\/')}: `));
    expect(reason).toContain(recorded);
    expect(reason).toContain(now);
    // The log is kept as it was — but for calls that waited for a person: nothing waits on an
    // ended run, so they failed with it (a retry asks again). Restoring the workflow resumes.
    const ended = (e: History['executions'][number]) => (e.status === 'waiting_human' ? { ...e, status: 'failed' } : e);
    await expectUntouched({ ...f, history: { ...f.history, executions: f.history.executions.map(ended) } });
    expect(await f.world.store.getRun(f.id)).toMatchObject({ status: 'failed', reason });
  }

  it('feature-completed with a changed prompt', async () => {
    const f = imported('feature-completed', {
      edit: (s) => s.replace('"Plan this feature: "', '"Sketch this feature: "'),
    });
    await expectMismatch(
      f,
      '1',
      'recorded run("architect") with prompt "Plan this feature: add a login page"',
      'now calls run("architect") with prompt "Sketch this feature: add a login page"',
    );
  });

  it('parallel-completed with one more branch', async () => {
    const f = imported('parallel-completed', {
      edit: (s) =>
        s.replace(
          '    end)\n  note("joined")',
          '    end,\n    function() return run("reviewer", "one more").status end)\n  note("joined")',
        ),
    });
    await expectMismatch(f, '1', 'recorded parallel(3 branches)', 'now calls parallel(4 branches)');
  });

  it('nested-parallel with a changed prompt inside the inner parallel', async () => {
    const f = imported('nested-parallel', { edit: (s) => s.replace('"Front end of: "', '"UI of: "') });
    await expectMismatch(
      f,
      '1/2/1/1/1',
      'recorded run("coder") with prompt "Front end of: a shop"',
      'now calls run("coder") with prompt "UI of: a shop"',
    );
  });

  it('patched with the patched() block removed: the recorded marker is not reached', async () => {
    const f = imported('patched', {
      edit: (s) => s.replace('  if patched("lint") then run("reviewer", "lint") end\n', ''),
    });
    await expectMismatch(f, '3', 'recorded patched("lint")', 'now calls run("coder")');
  });

  it('feature-waiting with a changed pause: the waiting call itself no longer matches', async () => {
    const f = imported('feature-waiting', {
      edit: (s) => s.replace('pause("Approve deployment?")', 'pause("Deploy now?")'),
    });
    await expectMismatch(f, '6', 'recorded pause("Approve deployment?")', 'now calls pause("Deploy now?")');
  });
});
