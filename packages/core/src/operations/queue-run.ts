import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { startingRules } from '../engine/held-run.js';
import type { EnginePorts } from '../engine/ports.js';
import { UsageError } from '../errors.js';
import { canonicalHash } from '../lua/canonical-hash.js';
import { checkWorkflow } from '../lua/check-workflow.js';
import type { Project } from '../project/project.js';
import { resolveWorkflow } from '../project/workflows.js';
import { wakeForQueued } from '../signals/wake.js';
import { storeLiveness } from '../engine/ownership.js';
import type { Run, Trigger } from '../types.js';
import type { NewQueuedRun } from '../store/queue-store.js';
import { checkPriority, checkQueueKey } from './queue-checks.js';
import { workerIsLive } from '../worker/registration.js';

/** A start handed to the workers (shop run --detach, POST /api/runs, the web's form, a schedule, a hook). */
export interface QueueRequest {
  /** A workflow's name (workflows/<name>.lua) or path. */
  workflow: string;
  prompt: string;
  /** Higher is taken first (default 0). */
  priority?: number;
  /** Runs of one key count apart against the workflow's config{ concurrency }. */
  key?: string | null;
  /** An idempotency id: the same id again gives the same run, nothing new. */
  id?: string | null;
  trigger: Trigger;
  /** Who started it (the run's first event). */
  actor: string;
}

export interface QueuedRun {
  run: Run;
  /** False when `id` named a run started before (that run is returned). */
  created: boolean;
  /** Workers live on this store now: 0 means it waits until one starts (shop watch). */
  liveWorkers: number;
}

const ID = /^[\x21-\x7e]{1,200}$/;
/** A trigger's data (a webhook's payload, an API caller's `data`) as JSON, at most this long. */
export const TRIGGER_DATA_MAX = 1024 * 1024;

/**
 * Records a queued run for the workers: the workflow looked up and checked (bad Lua is bad
 * input: refused before a run exists), its config{ concurrency } read and kept with the run,
 * every field bounded. The same `id` twice is one run. Live workers on this machine are woken
 * (PostgreSQL wakes every machine's by the insert's NOTIFY).
 */
export async function queueRun(ports: EnginePorts, project: Project, req: QueueRequest): Promise<QueuedRun> {
  const priority = checkPriority(req.priority ?? 0);
  const key = checkQueueKey(req.key ?? null);
  if (req.id != null && !ID.test(req.id))
    throw new UsageError(`an id is 1 to 200 printable characters without spaces, not ${JSON.stringify(req.id)}`);
  const data = req.trigger.data ?? null;
  if (data !== null && JSON.stringify(data).length > TRIGGER_DATA_MAX)
    throw new UsageError(`the trigger's data is over ${TRIGGER_DATA_MAX / 1024} KiB of JSON; send less`);
  const { run, created } = await ports.store.queueRun(
    queuedRunInput(ports, project, { ...req, priority, key, trigger: { ...req.trigger, data } }),
  );
  if (created) wakeForQueued(ports.paths.signalsDir, run.id);
  return { run, created, liveWorkers: await liveWorkers(ports) };
}

/**
 * The queued run a request makes, not recorded yet: the workflow looked up and checked (bad Lua
 * is refused before a run exists) and its config{ concurrency } read. A schedule's slot queues
 * this inside its own transaction.
 */
export function queuedRunInput(ports: EnginePorts, project: Project, req: QueueRequest): NewQueuedRun {
  const wf = resolveWorkflow(project, req.workflow);
  const source = readFileSync(wf.path, 'utf8');
  const config = checkWorkflow(source, basename(wf.path), ports.modules?.() ?? null);
  return {
    spec: wf.spec,
    workflowPath: wf.path,
    workflowHash: canonicalHash(ports.readWorkflow(wf.path)),
    prompt: req.prompt,
    workspace: project.root,
    branch: null,
    seed: randomInt(2 ** 31),
    actor: req.actor,
    rules: startingRules(ports, wf.path),
    priority: req.priority ?? 0,
    queueKey: req.key ?? null,
    concurrency: config.concurrency ?? null,
    trigger: req.trigger,
    startId: req.id ?? null,
  };
}

/** Workers live on the store now, judged by its clock. */
export async function liveWorkers(ports: EnginePorts): Promise<number> {
  const liveness = storeLiveness(ports);
  const now = ports.store.now();
  return (await ports.store.listWorkers()).filter((w) => workerIsLive(w, liveness, now, ports.leaseMs)).length;
}
