import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildAnswer, type AnswerInput } from '../decisions/build-answer.js';
import { createRun, driveRun } from '../engine/drive-run.js';
import { fireDueTimers } from '../engine/fire-timers.js';
import type { DriveOutcome } from '../engine/outcome.js';
import { Ownership } from '../engine/ownership.js';
import type { EnginePorts, Notice } from '../engine/ports.js';
import { seededRandom } from '../engine/seeded-random.js';
import { NotFoundError, ShopError, UsageError } from '../errors.js';
import type { ModuleSource } from '../lua/lua-modules.js';
import { openSqliteStore } from '../store/sqlite/sqlite-store.js';
import type { Execution } from '../types.js';
import type { Fixture, FixtureHuman } from './fixture.js';
import { SimulatedRunner } from './simulated-runner.js';

/** Where a simulated run ended, the calls it made, and the path it took as lines. */
export interface Simulation {
  status: 'completed' | 'stuck' | 'failed' | 'waiting_human';
  result: unknown;
  reason: string | null;
  calls: string[];
  path: string[];
}

/**
 * Runs a workflow with no LLM and no people: the same engine and store code as a real run
 * (a SQLite file in a temp folder), the fixture's agents in-process, its people answering
 * asks in order, sh() answered from the fixture, timers fast-forwarded. Seeded: the same
 * fixture and seed take the same path every time. `modules`: what require() loads (the
 * project's workflows/lib: a module is the workflow's own code, not something to script).
 */
export async function simulate(
  source: string,
  workflow: string,
  fixture: Fixture,
  seed = fixture.seed,
  modules: ModuleSource | null = null,
): Promise<Simulation> {
  const dir = mkdtempSync(join(tmpdir(), 'shop-test-'));
  const path: string[] = [];
  const clock = { t: Date.now() };
  const world = simulatedPorts(dir, source, modules, fixture, clock, (n) => notice(path, n));
  const humans = new People(fixture.humans, seed);
  try {
    const workflowPath = join(dir, 'workflows', `${workflow}.lua`);
    const { run, owner } = await createRun(world, {
      spec: workflow,
      workflowPath,
      prompt: fixture.prompt,
      workspace: join(dir, 'workspace'),
      actor: 'shop test',
      seed,
    });
    let outcome = await driveRun(world, run.id, { wait: false }, owner);
    while (outcome.status === 'waiting_human' || outcome.status === 'waiting') {
      // Asleep: its time comes at once. Waiting on people: the fixture's answer, else the next timer's time.
      const answered = outcome.status === 'waiting_human' && (await humans.answer(world, outcome.waiting, path));
      if (!answered && !(await fastForward(world, run.id, clock, path))) break;
      outcome = await driveRun(world, run.id, { wait: false });
    }
    const executions = await world.store.loadExecutions(run.id);
    return { ...ending(outcome), calls: executions.map((e) => e.agent ?? e.kind), path };
  } finally {
    await world.store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function ending(o: DriveOutcome): Omit<Simulation, 'calls' | 'path'> {
  switch (o.status) {
    case 'completed':
      return { status: 'completed', result: o.result, reason: null };
    case 'stuck':
    case 'failed':
      return { status: o.status, result: null, reason: o.reason };
    case 'waiting_human':
      return {
        status: 'waiting_human',
        result: null,
        reason: `no scripted answer for ${o.waiting.map((e) => `call ${e.key} (${e.agent}: ${e.waitingFor})`).join(', ')}`,
      };
    default:
      return { status: 'failed', result: null, reason: o.status };
  }
}

/** The next timer of a run that waits on people nobody scripted: its time comes at once. */
async function fastForward(world: EnginePorts, runId: number, clock: { t: number }, path: string[]): Promise<boolean> {
  const due = await world.store.nextTimer([runId]);
  if (due === null) return false;
  clock.t = Math.max(clock.t, due);
  const run = (await world.store.getRun(runId))!;
  const owner = await Ownership.claim(world, run);
  try {
    const fired = await fireDueTimers(world, run, owner.token);
    path.push(`  (clock moved to ${new Date(clock.t).toISOString()}: ${fired.fired} timer(s) fired)`);
    return true;
  } finally {
    await owner.release(false);
  }
}

/** The fixture's people: each ask takes the first unused entry for its call, its pause message, or "*". */
class People {
  private readonly used = new Set<number>();
  private readonly random: () => number;

  constructor(
    private readonly humans: FixtureHuman[],
    seed: number,
  ) {
    this.random = seededRandom(seed + 7919).next;
  }

  async answer(world: EnginePorts, waiting: Execution[], path: string[]): Promise<boolean> {
    let any = false;
    for (const exec of waiting) {
      const i = this.humans.findIndex(
        (h, n) =>
          !this.used.has(n) &&
          (h.call === exec.key ||
            (h.pause !== undefined && exec.kind === 'pause' && h.pause === exec.waitingFor) ||
            h.ask === '*'),
      );
      if (i < 0) continue;
      this.used.add(i);
      const h = this.humans[i];
      const { input, said } = this.input(h);
      let fields;
      try {
        fields = buildAnswer(exec, input);
      } catch (e) {
        if (e instanceof ShopError) throw new FixtureError(`humans[${i}] cannot answer call ${exec.key}: ${e.message}`);
        throw e;
      }
      const by = h.by ?? 'tester';
      if (exec.kind === 'pause') path.push(`  [${exec.key}] pause: ${exec.waitingFor}`);
      await world.store.recordAnswer({
        runId: exec.runId,
        key: exec.key,
        ask: exec.ask,
        ...fields,
        responder: by,
        channel: 'cli',
      });
      path.push(`  [${exec.key}] ${by}: ${said}${input.message ? ` "${input.message}"` : ''}`);
      any = true;
    }
    return any;
  }

  /** The answer to give, and how the path says it ("approve", "status DONE", "answers {…}"). */
  private input(h: FixtureHuman): { input: AnswerInput; said: string } {
    if (h.answers)
      return { input: { answers: h.answers, message: h.message }, said: `answers ${JSON.stringify(h.answers)}` };
    if (h.status) return { input: { status: h.status, message: h.message }, said: `status ${h.status}` };
    const verdict = typeof h.verdict === 'string' ? h.verdict : this.sample(h.verdict!);
    return {
      input: {
        verdict: verdict === 'approve' ? 'approved' : verdict === 'reject' ? 'rejected' : 'answer',
        message: h.message,
      },
      said: verdict,
    };
  }

  private sample(mix: Partial<Record<'approve' | 'reject' | 'answer', number>>): string {
    const entries = Object.entries(mix).filter(([, w]) => (w ?? 0) > 0) as [string, number][];
    let r = this.random() * entries.reduce((s, [, w]) => s + w, 0);
    for (const [v, w] of entries) if ((r -= w) < 0) return v;
    return entries.at(-1)![0];
  }
}

/** A fixture that cannot drive the run (an answer its ask refuses): bad input, exit 2. */
class FixtureError extends UsageError {}

function notice(path: string[], n: Notice) {
  if (n.type === 'agent_finished') path.push(`  [${n.key}] ${n.agent} → ${n.status}${n.text ? `: ${n.text}` : ''}`);
  else if (n.type === 'waiting') path.push(`  [${n.execution.key}] waits: ${n.execution.waitingFor}`);
  else if (n.type === 'log') path.push(`  log: ${n.message}`);
}

/** Engine ports for a simulation: real SQLite in `dir`, the fixture's agents and commands, a clock that jumps. */
function simulatedPorts(
  dir: string,
  source: string,
  modules: ModuleSource | null,
  fixture: Fixture,
  clock: { t: number },
  onNotice: (n: Notice) => void,
): EnginePorts {
  mkdirSync(join(dir, 'workspace'), { recursive: true });
  let sessions = 0;
  let tokens = 0;
  const known = Object.keys(fixture.agents);
  return {
    store: openSqliteStore(join(dir, 'shop.db'), () => clock.t),
    runner: new SimulatedRunner(fixture.agents),
    loadAgent: (name) => {
      if (!known.includes(name))
        throw new NotFoundError(
          `the fixture scripts no agent "${name}" (it has: ${known.join(', ') || 'none'}); add "agents": {"${name}": [ … ]}`,
        );
      return { name, file: `fixture:${name}`, instructions: '', allowedTools: [] };
    },
    readWorkflow: () => source,
    ...(modules && { modules: () => modules }),
    openSignals: () => ({ next: () => new Promise(() => {}), close: async () => {} }),
    shell: async (req) => fixture.shell[req.cmd ?? req.argv!.join(' ')] ?? { code: 0, stdout: '', stderr: '' },
    clock: { now: () => clock.t },
    notifier: { notify: onNotice },
    notices: { send() {}, settle: async () => {} },
    newSessionId: () => `simulated-session-${++sessions}`,
    newToken: () => `simulated-${++tokens}`,
    self: { host: 'shop-test', pid: process.pid, pidStart: 'shop-test' },
    // One process runs every driver here, one after another: a finished driver's lease is free.
    processAlive: () => false,
    processStart: () => null,
    killOrphan: async () => {},
    leaseMs: 30_000,
    paths: { signalsDir: join(dir, 'signals'), runsDir: join(dir, 'runs'), binDir: null },
  };
}
