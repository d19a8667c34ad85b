import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { findProject, shopOperations } from '@shop/core';
import type { EnginePorts, ShopOperations } from '@shop/core';
import { FLOW_PATH, createRun, newFlow, openSqliteStore } from '@shop/core/testing';
import type { Script } from '@shop/core/testing';

/**
 * A scripted world (core's newFlow: a real SQLite file in a temp dir, scripted agents) whose
 * store stamps rows with the world's clock, so ages on screen are exact. `start(body)` makes
 * a run of `function workflow(prompt) <body> end`, `drive(id)` drives it until it waits or ends.
 */
export function testWorld(script: Script = {}) {
  const flow = newFlow('shop-tui-', script);
  const { world } = flow;
  world.store.close();
  world.store = world.ports.store = openSqliteStore(join(flow.dir, 'shop.db'), () => world.clock.t);
  for (const name of ['architect', 'deployer']) world.agents.set(name, {});
  const wrap = (body: string) => `function workflow(prompt)\n${body}\nend\n`;
  return {
    ...flow,
    world,
    store: world.store,
    start: (body: string) => flow.start(wrap(body)),
    /** Starts and drives a run, its prompt given. */
    async run(body: string, prompt = 'the task') {
      world.workflows.set(FLOW_PATH, wrap(body));
      const { run, owner } = await createRun(world.ports, {
        spec: 'flow',
        workflowPath: FLOW_PATH,
        prompt,
        workspace: flow.dir,
        actor: 'tester',
      });
      await owner.release(false);
      await flow.drive(run.id);
      return run.id;
    },
    /** A run its driver holds right now, its agent at work (`activity`). */
    async working(agent: string, activity: string) {
      world.workflows.set(FLOW_PATH, wrap(`run("${agent}")`));
      const { run, owner } = await createRun(world.ports, {
        spec: 'flow',
        workflowPath: FLOW_PATH,
        prompt: 'the task',
        workspace: flow.dir,
        actor: 'tester',
      });
      await world.store.startExecution(owner.token, {
        runId: run.id,
        key: '1',
        kind: 'run',
        agent,
        fingerprint: 'f',
        sessionId: 'session-w',
        cwd: flow.dir,
        prompt: 'p',
        request: {},
        signalPath: null,
      });
      await world.store.setActivity(owner.token, run.id, '1', { text: activity });
      return run.id;
    },
    /** Closes the store and removes the temp dir. */
    dispose() {
      world.store.close();
      rmSync(flow.dir, { recursive: true, force: true });
    },
    /** Moves the clock on (seconds). */
    later(seconds: number) {
      world.clock.t += seconds * 1000;
    },
  };
}
export type TestWorld = ReturnType<typeof testWorld>;

/** Core's operations over the world's ports (a person's, never an agent's): what the CLI hands the browser. */
export function testOps(
  w: { world: { ports: EnginePorts }; dir: string },
  ports: EnginePorts = w.world.ports,
): ShopOperations {
  return shopOperations(ports, findProject(w.dir, {}), { agentStep: null });
}
