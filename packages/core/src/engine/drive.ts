import { randomInt } from 'node:crypto';
import { NotFoundError } from '../errors.js';
import type { Run } from '../types.js';
import type { DriveOutcome } from './outcome.js';
import type { EnginePorts } from './ports.js';
import { ended } from './outcome.js';
import { RunDriver, type DriveOptions } from './run-driver.js';

export interface StartInput {
  spec: string;
  workflowPath: string;
  prompt: string;
  workspace: string;
  actor: string;
}

/** Records a new run owned by this process; drive it with `driveRun`. */
export async function createRun(ports: EnginePorts, input: StartInput): Promise<Run> {
  return ports.store.createRun({
    ...input,
    branch: null,
    seed: randomInt(2 ** 31),
    ownerPid: ports.pid,
    leaseUntil: ports.clock.now() + 30_000,
  });
}

/** Replays a run from its log and drives it on until it ends or waits for a person. */
export async function driveRun(ports: EnginePorts, runId: number, opts: DriveOptions): Promise<DriveOutcome> {
  const run = await mustGetRun(ports, runId);
  if (run.status === 'completed' || run.status === 'stuck') return ended(run);
  if (run.status === 'failed') await ports.store.setRunStatus(run.id, 'running', { type: 'retried', actor: 'shop', channel: 'cli' });
  return new RunDriver(ports, run, opts).drive();
}

export async function mustGetRun(ports: Pick<EnginePorts, 'store'>, runId: number): Promise<Run> {
  const run = await ports.store.getRun(runId);
  if (!run) throw new NotFoundError(`no run ${runId}; see runs with: shop list`);
  return run;
}

