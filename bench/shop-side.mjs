// Shop's side of P1, P2 and P6, plus two Shop-only figures kept from the old bench (a replay
// in-process, and shop test). The LangGraph twins are in langgraph/side.mjs.
import { driveRun } from '../packages/core/dist/engine/drive-run.js';
import { findProject } from '../packages/core/dist/project/project.js';
import { parseFixture } from '../packages/core/dist/simulate/fixture.js';
import { simulate } from '../packages/core/dist/simulate/simulate.js';
import { timed, timeProcess } from './stats.mjs';
import {
  checkpointedSize,
  loopWorkflow,
  shopBin,
  shopEnv,
  shopProject,
  sqlitePorts,
  startRun,
  stubAgent,
} from './shop-project.mjs';

function expect(outcome, status, what) {
  if (outcome.status !== status)
    throw new Error(
      `${what} ended ${outcome.status}${outcome.reason ? `: ${outcome.reason}` : ''} (expected ${status})`,
    );
}

/**
 * P1 and P6 — a workflow `for i = 1, steps do run("worker", "step " .. i) end` on an
 * in-process stub agent, driven by the engine from a recorded new run to `completed`. The
 * time is driveRun's (Lua, replay bookkeeping, two store transactions and an audit event
 * per call); creating the run is outside it. The bytes are the store file's after a WAL
 * checkpoint, divided by the steps (the run's calls, their results and its audit trail).
 */
export async function perStep(steps) {
  const shop = shopProject('shop-p1-', loopWorkflow(steps), stubAgent());
  const { run, owner } = await startRun(shop);
  const { ms, value } = await timed(() => driveRun(shop.ports, run.id, { wait: false }, owner));
  expect(value, 'completed', 'the P1 run');
  await shop.ports.store.close();
  return { msPerStep: ms / steps, bytesPerStep: checkpointedSize(shop.project.dbFile) / steps };
}

/**
 * P1's floor: what a step's store writes cost alone — the call recorded as started, then its
 * result, each one durable transaction with its audit event, as the engine makes them —
 * with no Lua and no engine around them. Milliseconds per step.
 */
export async function storeWritesPerStep(steps) {
  const shop = shopProject('shop-p1-floor-', loopWorkflow(1), stubAgent());
  const { run, owner } = await startRun(shop);
  const { store } = shop.ports;
  const result = { status: 'DONE', summary: 'ok', session_id: '5b4e246f-4bf0-4141-aeb1-31f516d72cc0' };
  const { ms } = await timed(async () => {
    for (let i = 1; i <= steps; i++) {
      const key = `bench/${i}`;
      await store.startExecution(owner.token, {
        runId: run.id,
        key,
        kind: 'run',
        agent: 'worker',
        fingerprint: 'run("worker") #16be8fa203e160',
        sessionId: result.session_id,
        cwd: shop.dir,
        prompt: `step ${i}`,
        request: {},
        signalPath: null,
      });
      await store.completeExecution(owner.token, run.id, key, result, { costUsd: 0, numTurns: 1, durationMs: 0 });
    }
  });
  await store.close();
  return ms / steps;
}

/**
 * P2's subject: a run of `calls` recorded agent calls that then waits at `pause()`. Built
 * once through the engine (in-process stub agent); no process holds it afterwards.
 */
export async function suspendedRun(calls) {
  const shop = shopProject('shop-p2-', loopWorkflow(calls, 'pause("end of bench")'), stubAgent());
  const { run, owner } = await startRun(shop);
  expect(await driveRun(shop.ports, run.id, { wait: false }, owner), 'waiting_human', 'the P2 run');
  await shop.ports.store.close();
  return { dir: shop.dir, id: run.id, calls };
}

/**
 * P2 — `node packages/cli/bin/shop resume <id>` as a new process, wall-clock: start-up,
 * opening the store, replaying every recorded call from the log, stopping at the pause
 * again (exit 3: waiting for a person). Leaves the run as it found it, so it can repeat.
 */
export function resumeProcess({ dir, id }) {
  return timeProcess([process.execPath, shopBin, 'resume', String(id)], { cwd: dir, env: shopEnv(), expect: 3 });
}

/** P2's reference: the start-up of a bare `node -e 0`. */
export function bareNode() {
  return timeProcess([process.execPath, '-e', '0']);
}

/** The replay alone, in this process (modules loaded, store opened outside the time): driveRun to the pause. */
export async function replayInProcess({ dir, id }) {
  const ports = sqlitePorts(findProject(dir, {}), { notifier: { notify() {} }, binDir: null, runner: stubAgent() });
  try {
    const { ms, value } = await timed(() => driveRun(ports, id, { wait: false }));
    expect(value, 'waiting_human', 'the replay');
    return ms;
  } finally {
    await ports.store.close();
  }
}

const simulatedSource = `function workflow(p)\n  for i = 1, 19 do run("worker", "step " .. i) end\n  return pause("Ship?").continue\nend\n`;
const simulatedFixture = parseFixture({
  agents: { worker: Array.from({ length: 19 }, () => ({})) },
  humans: [{ pause: 'Ship?', verdict: 'approve' }],
}).fixture;

/** shop test's engine: a 20-call workflow on simulated agents and a person, in memory. */
export async function simulated() {
  const { ms, value } = await timed(() => simulate(simulatedSource, 'bench', simulatedFixture));
  expect(value, 'completed', 'the simulated run');
  return ms;
}
