import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dyingAt, Killed } from './testing/dying-store.js';
import { finishRun } from './testing/finish-run.js';
import { newFlow } from './testing/flow.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

/**
 * kill -9 at every store write a driver makes — just before it commits, and just after —
 * then a new driver takes over: the run must end exactly as an uninterrupted one, with no
 * completed agent call run again and no answer lost.
 */
const WORKFLOW = `function workflow(prompt)
  local plan = run("coder", "plan")
  local review, made = parallel(
    function() return run("reviewer", "review " .. plan.summary).summary end,
    function() log("making") return sh("make").stdout end)
  local go = pause("Ship?")
  local ship = run("coder", "ship")
  return { plan.summary, review, made, go.continue, ship.summary, math.random(1, 1000) }
end
`;
const SCRIPT = { coder: [{ summary: 'planned' }, { summary: 'shipped' }], reviewer: [{ summary: 'ok', delayMs: 5 }] };

const DRIVER_WRITES = new Set([
  'claimRun',
  'renewLease',
  'releaseRun',
  'setWorkspace',
  'startExecution',
  'restartExecution',
  'setExecutionPid',
  'completeExecution',
  'markWaiting',
  'closeExecution',
  'cancelExecutions',
  'finishRun',
  'setRunStatus',
  'appendEvent',
]);

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

async function baseline() {
  const f = newFlow('shop-crash-', SCRIPT);
  worlds.push(f.world);
  const id = await f.start(WORKFLOW);
  const counter = { writes: 0 };
  f.world.ports.store = dyingAt(f.world.store, DRIVER_WRITES, 0, 'after', counter);
  f.world.ports.shell = async () => ({ code: 0, stdout: 'made', stderr: '' });
  const outcome = await finishRun(f.world, id);
  return { outcome, writes: counter.writes, seed: (await f.world.store.getRun(id))!.seed };
}

describe('kill -9 at every store write', async () => {
  const base = await baseline();

  it('the uninterrupted run completes (the reference)', () => {
    expect(base.outcome).toMatchObject({
      status: 'completed',
      result: ['planned', 'ok', 'made', true, 'shipped', expect.any(Number)],
    });
    expect(base.writes).toBeGreaterThan(15);
  });

  for (const when of ['before', 'after'] as const) {
    it(`killed ${when} each write: the takeover ends as the uninterrupted run, no completed agent call re-run`, async () => {
      for (let n = 1; n <= base.writes; n++) {
        const f = newFlow('shop-crash-', SCRIPT);
        worlds.push(f.world);
        const id = await f.start(WORKFLOW);
        // Same seed as the reference, so math.random draws alike.
        const db = new Database(join(f.dir, 'shop.db'));
        db.prepare('UPDATE runs SET seed = ? WHERE id = ?').run(base.seed, id);
        db.close();
        const store = f.world.store;
        f.world.ports.store = dyingAt(store, DRIVER_WRITES, n, when, { writes: 0 });
        // A command killed before its result was recorded runs again (at least once, like any
        // effect not yet recorded): the same output either way.
        f.world.ports.shell = async () => ({ code: 0, stdout: 'made', stderr: '' });

        const crashed = await finishRun(f.world, id).then(
          () => null,
          (e: unknown) => e,
        );
        if (crashed && !(crashed instanceof Killed)) throw crashed;
        const completedBefore = new Set(
          (await store.loadExecutions(id))
            .filter((e) => e.status === 'completed' && e.kind === 'run')
            .map((e) => e.key),
        );
        const invokedBefore = f.world.runner.count();

        // A new process: the dead driver's lease runs out, the store is whole again.
        f.world.clock.t += f.world.ports.leaseMs + 1;
        f.world.ports.store = store;
        const outcome = await finishRun(f.world, id);
        expect({ n, when, outcome }).toEqual({ n, when, outcome: base.outcome });
        const rerun = f.world.runner.invocations
          .slice(invokedBefore)
          .map((inv) => inv.env.SHOP_CALL)
          .filter((key) => completedBefore.has(key));
        expect({ n, when, rerun }).toEqual({ n, when, rerun: [] });
        const logs = (await store.listEvents(id)).filter((e) => e.type === 'log');
        expect({ n, when, logs: logs.length }).toEqual({ n, when, logs: 1 });
      }
    });
  }
});
