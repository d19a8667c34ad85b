import { afterEach, describe, expect, it } from 'vitest';
import { dyingAt, Killed } from './testing/dying-store.js';
import { finishRun } from './testing/finish-run.js';
import { FLOW_PATH, newFlow } from './testing/flow.js';
import type { ScriptedWorld } from './testing/scripted-ports.js';

/**
 * kill -9 at every store write of a parent driving its child (call_workflow) — just before it
 * commits, and just after — then a new driver takes the parent over: it ends as an
 * uninterrupted run does, and the parent's call has started exactly one child, ever.
 */
const PARENT = `function workflow(prompt)
  local r = call_workflow("kid", "go")
  log("kid ended")
  return { r.status, r.result, context().parent }
end
`;
const KID = `function workflow(prompt)
  local ok = pause("ok?")
  return prompt .. "!" .. tostring(context().parent)
end
`;
const KID_PATH = FLOW_PATH.replace('flow.lua', 'kid.lua');

const DRIVER_WRITES = new Set([
  'claimRun',
  'renewLease',
  'releaseRun',
  'startExecution',
  'restartExecution',
  'completeExecution',
  'markWaiting',
  'createRun',
  'waitOn',
  'endWait',
  'closeExecution',
  'finishRun',
  'setRunStatus',
  'appendEvent',
  'updateRules',
]);

const worlds: ScriptedWorld[] = [];
afterEach(() => {
  for (const w of worlds.splice(0)) w.store.close();
});

function flow() {
  const f = newFlow('shop-child-crash-');
  worlds.push(f.world);
  f.world.workflows.set(KID_PATH, KID);
  return f;
}

async function baseline() {
  const f = flow();
  const id = await f.start(PARENT);
  const counter = { writes: 0 };
  f.world.ports.store = dyingAt(f.world.store, DRIVER_WRITES, 0, 'after', counter);
  return { outcome: await finishRun(f.world, id), writes: counter.writes, id };
}

describe('kill -9 at every store write around call_workflow', async () => {
  const base = await baseline();

  it("the uninterrupted parent completes with its one child's table (the reference)", () => {
    expect(base.outcome).toMatchObject({ status: 'completed', result: ['completed', `go!${base.id}`] });
    expect(base.writes).toBeGreaterThan(8);
  });

  for (const when of ['before', 'after'] as const) {
    it(`killed ${when} each write: the takeover ends as the uninterrupted run, with exactly one child`, async () => {
      for (let n = 1; n <= base.writes; n++) {
        const f = flow();
        const id = await f.start(PARENT);
        const store = f.world.store;
        f.world.ports.store = dyingAt(store, DRIVER_WRITES, n, when, { writes: 0 });
        const crashed = await finishRun(f.world, id).then(
          () => null,
          (e: unknown) => e,
        );
        if (crashed && !(crashed instanceof Killed)) throw crashed;

        // A new process: the dead driver's leases (parent's and child's) run out, the store is whole again.
        f.world.clock.t += f.world.ports.leaseMs + 1;
        f.world.ports.store = store;
        const outcome = await finishRun(f.world, id);
        expect({ n, when, outcome }).toEqual({ n, when, outcome: base.outcome });
        const children = await store.listChildren(id);
        expect({ n, when, children: children.map((c) => [c.parentKey, c.status]) }).toEqual({
          n,
          when,
          children: [['1', 'completed']],
        });
        expect({ n, when, runs: await store.countRuns() }).toEqual({ n, when, runs: 2 });
        const logs = (await store.listEvents(id)).filter((e) => e.type === 'log');
        expect({ n, when, logs: logs.length }).toEqual({ n, when, logs: 1 });
      }
    });
  }

  it('a second start of the call is refused by the store: one child per (parent, key), ever', async () => {
    const f = flow();
    const id = await f.start(PARENT);
    await finishRun(f.world, id);
    const run = (await f.world.store.getRun(id))!;
    const child = (await f.world.store.listChildren(id))[0]!;
    // As a replayed driver that missed the record would try it: the unique index says no.
    const token = f.world.ports.newToken();
    await f.world.store.claimRun(id, { token, host: 'h', pid: 1, pidStart: null }, 60_000, null);
    await expect(
      f.world.store.startExecution(token, {
        runId: id,
        key: '1',
        kind: 'workflow',
        agent: null,
        fingerprint: 'x',
        sessionId: null,
        cwd: run.workspace,
        prompt: null,
        request: {},
        signalPath: null,
        child: {
          spec: 'kid',
          workflowPath: KID_PATH,
          workflowHash: null,
          prompt: 'go',
          workspace: run.workspace,
          branch: null,
          seed: 1,
          owner: { token, host: 'h', pid: 1, pidStart: null },
          leaseMs: 1,
          actor: 't',
        },
      }),
    ).rejects.toThrow();
    expect((await f.world.store.listChildren(id)).map((c) => c.id)).toEqual([child.id]);
  });
});
