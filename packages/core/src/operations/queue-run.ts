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
import type { OwnerClaim } from '../store/store.js';
import type { Run, Trigger } from '../types.js';
import type { NewQueuedRun } from '../store/queue-store.js';
import { checkPriority, checkQueueKey } from './queue-checks.js';
import { liveWorkerCount } from '../worker/registration.js';

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
const REMOTE = new Set<Trigger['kind']>(['web', 'api', 'webhook']);
const WORKFLOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** A trigger's data (a webhook's payload, an API caller's `data`) as JSON, at most this long. */
export const TRIGGER_DATA_MAX = 1024 * 1024;

/**
 * Records a queued run for the workers: the workflow looked up and checked (bad Lua is bad
 * input: refused before a run exists), its config{ concurrency } read and kept with the run,
 * every field bounded. The same `id` twice is one run. Live workers on this machine are woken
 * (PostgreSQL wakes every machine's by the insert's NOTIFY). `heldBy`: a foreground shop run
 * holding it while it waits for its turn here (no worker takes it while that lease lives).
 */
export async function queueRun(
  ports: EnginePorts,
  project: Project,
  req: QueueRequest,
  heldBy?: OwnerClaim,
): Promise<QueuedRun> {
  const input = queuedRunInput(ports, project, req);
  const { run, created } = await ports.store.queueRun(
    heldBy ? { ...input, owner: heldBy, leaseMs: ports.leaseMs } : input,
  );
  if (created) wakeForQueued(ports.paths.signalsDir, run.id);
  return { run, created, liveWorkers: await liveWorkerCount(ports) };
}

/**
 * The queued run a request makes, checked (queueRun's rules) but not recorded: a hook's
 * delivery records it in its own transaction, with the delivery.
 */
export function queuedRunInput(ports: EnginePorts, project: Project, req: QueueRequest): NewQueuedRun {
  const priority = checkPriority(req.priority ?? 0);
  const key = checkQueueKey(req.key ?? null);
  if (req.id != null && !ID.test(req.id))
    throw new UsageError(`an id is 1 to 200 printable characters without spaces, not ${JSON.stringify(req.id)}`);
  const data = req.trigger.data ?? null;
  if (data !== null && JSON.stringify(data).length > TRIGGER_DATA_MAX)
    throw new UsageError(`the trigger's data is over ${TRIGGER_DATA_MAX / 1024} KiB of JSON; send less`);
  // From afar (a page, the API, a hook) a run starts a workflow of the project by name, never a file by its path.
  if (REMOTE.has(req.trigger.kind) && !WORKFLOW_NAME.test(req.workflow))
    throw new UsageError(
      `${JSON.stringify(req.workflow.slice(0, 80))} is not a workflow name (workflows/<name>.lua: letters, digits, - and _)`,
    );
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
    priority,
    queueKey: key,
    concurrency: config.concurrency ?? null,
    trigger: { ...req.trigger, data },
    startId: req.id ?? null,
  };
}
