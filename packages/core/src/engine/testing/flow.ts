import { createRun, driveRun } from '../drive-run.js';
import type { AgentRunner } from '../../agents/agent-runner.js';
import { ScriptedRunner, type Script } from './scripted-runner.js';
import { scriptedWorld } from './scripted-ports.js';
import { tempDir } from '../../testing/temp-dir.js';

export const FLOW_PATH = '/project/workflows/flow.lua';

/** A scripted world in a fresh temp dir, with helpers to start a run of `source` and drive it. */
export function newFlow(prefix: string, script: Script = {}) {
  const dir = tempDir(prefix);
  const world = scriptedWorld(dir, new ScriptedRunner(script));
  const start = async (source: string) => {
    world.workflows.set(FLOW_PATH, source);
    const { run, owner } = await createRun(world.ports, {
      spec: 'flow',
      workflowPath: FLOW_PATH,
      prompt: 'the task',
      workspace: dir,
      actor: 'tester',
    });
    // The creating driver lets go, as `shop run` does once it stops driving.
    await owner.release(false);
    return run.id;
  };
  const drive = (id: number, wait = false) => driveRun(world.ports, id, { wait });
  return { dir, world, start, drive };
}

/** A runner that plays the scripted turn (spawning "pid 999999"), then dies with the driver. */
export function crashingAfter(inner: ScriptedRunner): AgentRunner {
  return {
    async invoke(inv) {
      inv.onSpawn?.(999_999);
      // The agent is this "process": the inner runner's own pid is not recorded.
      await inner.invoke({ ...inv, onSpawn: undefined });
      throw new Error('driver crashed');
    },
  };
}
