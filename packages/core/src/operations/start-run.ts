import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { createRun } from '../engine/drive-run.js';
import type { Ownership } from '../engine/ownership.js';
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
): Promise<StartedRun> {
  const wf = resolveWorkflow(project, req.workflow);
  checkWorkflow(readFileSync(wf.path, 'utf8'), basename(wf.path), ports.modules?.() ?? null);
  if (req.worktree) assertGitRepo(project.root);
  const { run, owner } = await createRun(ports, {
    spec: wf.spec,
    workflowPath: wf.path,
    prompt: req.prompt,
    workspace: project.root,
    actor: req.actor,
  });
  onCreated?.(run);
  if (!req.worktree) return { run, owner, worktree: null };
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
