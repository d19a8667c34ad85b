import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createRun } from '../engine/drive-run.js';
import { Ownership, ownerRecord } from '../engine/ownership.js';
import { queueRun } from './queue-run.js';
import type { EnginePorts } from '../engine/ports.js';
import { checkWorkflow } from '../lua/check-workflow.js';
import type { Project } from '../project/project.js';
import { resolveWorkflow } from '../project/workflows.js';
import { addWorktree, assertGitRepo } from '../project/worktree.js';
import type { Channel, Run } from '../types.js';

export interface StartRequest {
  /** A workflow's name (workflows/<name>.lua) or path. */
  workflow: string;
  prompt: string;
  /** Give the run its own git worktree and branch. */
  worktree: boolean;
  /** Who started it (recorded on the run's first event). */
  actor: string;
  channel: Channel;
  /** Where it waits in the queue when its workflow has a config{ concurrency } (it is counted with its key). */
  key?: string | null;
  priority?: number;
}

export interface StartedRun {
  run: Run;
  /** This process owns the run from its first row: the caller drives it (or lets it go). */
  owner: Ownership;
  worktree: { path: string; branch: string } | null;
}

/**
 * Starts a run: the workflow looked up and checked (bad Lua is bad input: refused before a
 * run exists), the run row created and owned, then its worktree when asked for — a worktree
 * that cannot be made fails the run it was for. `onCreated` hears of the run as soon as it
 * exists (a front end shows its id before the worktree is made).
 */
export async function startRun(
  ports: EnginePorts,
  project: Project,
  req: StartRequest,
  onCreated?: (run: Run) => void,
  onQueued?: (run: Run) => void,
): Promise<StartedRun> {
  const wf = resolveWorkflow(project, req.workflow);
  const config = checkWorkflow(readFileSync(wf.path, 'utf8'), basename(wf.path), ports.modules?.() ?? null);
  if (req.worktree) assertGitRepo(project.root);
  const { run, owner } =
    config.concurrency === undefined
      ? await createRun(ports, {
          spec: wf.spec,
          workflowPath: wf.path,
          prompt: req.prompt,
          workspace: project.root,
          actor: req.actor,
        })
      : await inItsTurn(ports, project, req, onCreated, onQueued);
  if (config.concurrency === undefined) onCreated?.(run);
  if (!req.worktree || run.status !== 'running') return { run, owner, worktree: null };
  try {
    const tree = addWorktree(project.root, project.worktreesDir, run.id);
    await ports.store.setWorkspace(owner.token, run.id, tree.path, tree.branch);
    return { run: { ...run, workspace: tree.path, branch: tree.branch }, owner, worktree: tree };
  } catch (e) {
    const reason = (e as Error).message;
    await ports.store.finishRun(owner.token, run.id, {
      status: 'failed',
      reason,
      event: { type: 'failed', actor: 'shop', channel: req.channel, data: { reason } },
    });
    await owner.release(false);
    throw e;
  }
}

/** How often a run waiting here for its turn asks again (a run of its group ending frees its place). */
const TURN_POLL_MS = 250;

/**
 * A workflow with config{ concurrency }: the run joins the queue, held by this process (no
 * worker takes it while it waits here), and is taken here in its turn — never past the bound.
 * Said once (`onQueued`) when it must wait. Stopped meanwhile: the run as it ended.
 */
async function inItsTurn(
  ports: EnginePorts,
  project: Project,
  req: StartRequest,
  onCreated: ((run: Run) => void) | undefined,
  onQueued: ((run: Run) => void) | undefined,
): Promise<{ run: Run; owner: Ownership }> {
  const token = ports.newToken();
  const me = ownerRecord(ports, token);
  const trigger = { kind: 'cli' as const, name: null, by: req.actor, data: null };
  const { run } = await queueRun(ports, project, { ...req, trigger }, me);
  onCreated?.(run);
  const owner = Ownership.adopt(ports, run);
  for (let said = false; ; said = true) {
    const [taken] = await ports.store.claimQueuedRuns(me, ports.leaseMs, 1, run.id);
    if (taken) return { run: taken, owner };
    const now = await ports.store.getRun(run.id);
    if (!now || now.status !== 'queued') {
      // Stopped while it waited (or taken by a worker after this process stalled past its lease): not ours to drive.
      owner.lose(`run ${run.id} left the queue while it waited here (${now?.status ?? 'deleted'})`);
      return { run: now ?? run, owner };
    }
    if (!said) onQueued?.(now);
    await owner.renewIfDue();
    await new Promise((r) => setTimeout(r, TURN_POLL_MS));
  }
}
