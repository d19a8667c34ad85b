import { randomInt } from 'node:crypto';
import { DamagedLogError, RunNotFoundError } from '../errors.js';
import { canonicalHash } from '../lua/canonical-hash.js';
import type { Run } from '../types.js';
import { ended, type DriveOutcome } from './outcome.js';
import { Ownership, ownerRecord } from './ownership.js';
import type { EnginePorts } from './ports.js';
import { ReplayLog } from './replay-log.js';
import { Scheduler, type CheckIn } from './scheduler.js';
import { settleHold, startingRules, type AcceptChanges } from './held-run.js';
import type { Slots } from './slots.js';
import { childAsks } from '../waits/child-asks.js';

export interface DriveOptions {
  /** Keep the process alive while the run waits for a person, resuming in place. */
  wait: boolean;
  /** Ctrl-C / SIGTERM: stop the agents, leave the run resumable. */
  signal?: AbortSignal;
  /** Keep the run when it waits (shop watch holds it, so answers are left to it). */
  keep?: boolean;
  /** Agents and commands across every run of this process (shop watch --max-parallel). */
  sharedSlots?: Slots;
  /** A person takes the rule files as they are now: their rules from now on, and a held run goes on. */
  acceptChanges?: AcceptChanges;
}

export interface StartInput {
  spec: string;
  workflowPath: string;
  prompt: string;
  workspace: string;
  actor: string;
  /** math.random's seed (random when not given; shop test fixes it). */
  seed?: number;
}

/** Records a new run owned by this driver; drive it with `driveRun(…, owner)`. */
export async function createRun(ports: EnginePorts, input: StartInput): Promise<{ run: Run; owner: Ownership }> {
  await ports.loadEngine?.();
  const token = ports.newToken();
  const source = ports.readWorkflow(input.workflowPath);
  const run = await ports.store.createRun({
    ...input,
    branch: null,
    seed: input.seed ?? randomInt(2 ** 31),
    workflowHash: canonicalHash(source),
    owner: ownerRecord(ports, token),
    leaseMs: ports.leaseMs,
    rules: startingRules(ports, input.workflowPath),
  });
  return { run, owner: Ownership.adopt(ports, run) };
}

export async function mustGetRun(ports: Pick<EnginePorts, 'store'>, runId: number): Promise<Run> {
  const run = await ports.store.getRun(runId);
  if (!run) throw new RunNotFoundError(runId);
  return run;
}

/**
 * Replays a run from its log and drives it on until it ends or waits for a person. Takes
 * the run (ConflictError when another live driver holds it) unless `owner` already did.
 */
export async function driveRun(
  ports: EnginePorts,
  runId: number,
  opts: DriveOptions,
  owner?: Ownership,
): Promise<DriveOutcome> {
  await ports.loadEngine?.();
  const run = await mustGetRun(ports, runId);
  if (run.status === 'completed' || run.status === 'stuck') return ended(run);
  const own = owner ?? (await Ownership.claim(ports, run));
  /** Once the run was let go (or kept by the caller), the end must not release it again. */
  let settled = false;
  let scheduler: Scheduler | null = null;
  // Read before the try: a log that does not read leaves the run held by the caller (shop watch
  // fails it under its token). A result read later that does not (DamagedLogError) does the same.
  const log = new ReplayLog(await ports.store.loadReplayLog(runId));
  try {
    const first = await checkIn(ports, own);
    // A stop recorded while no driver held the run is carried out by whoever takes it next.
    if (first.kind === 'stop') return await stopNow(ports, own, first);
    if (first.kind === 'lost') return { status: 'lost' };
    // Read again now that it is held here: its hold and rules as they stand.
    let now = first.run ?? (await mustGetRun(ports, runId));
    const held = await settleHold(ports, own.token, now, opts.acceptChanges);
    if (held) return held;
    if (opts.acceptChanges || now.held) now = await mustGetRun(ports, runId);
    if (now.status === 'failed')
      await ports.store.setRunStatus(own.token, runId, 'running', {
        type: 'retried',
        actor: 'shop',
        channel: 'engine',
      });
    scheduler = new Scheduler({
      ports,
      run: now,
      token: own.token,
      wait: opts.wait,
      interrupt: opts.signal,
      sharedSlots: opts.sharedSlots,
      log,
      logCounts: () => ports.store.countLogs(runId),
      checkIn: () => checkIn(ports, own),
      // A child is driven as its parent is (in place with --wait), and let go when it waits: a worker or a person's answer takes it on.
      driveChild: (childId, signal, owner) =>
        driveRun(ports, childId, { wait: opts.wait, signal, sharedSlots: opts.sharedSlots }, owner),
      lost: own.lost,
      lose: () => own.lose(),
    });
    for (;;) {
      let outcome = await scheduler.drive();
      // Waiting on a child that waits for a person: that person's ask is what the run needs.
      if (outcome.status === 'waiting') outcome = { ...outcome, asks: await childAsks(ports.store, outcome.waits) };
      if (outcome.status !== 'waiting_human' && outcome.status !== 'waiting') {
        // A child's end names its parent (no read more): whoever drove it may drive the parent on (drive-parents.ts).
        if (run.parentId !== null && (isFinal(outcome) || outcome.status === 'failed'))
          outcome = { ...outcome, parentId: run.parentId };
        if (!isFinal(outcome)) return outcome;
        const kept = endWorkspace(ports, run, scheduler.settings.keep_worktree === true);
        return kept ? { ...outcome, worktreeKept: kept } : outcome;
      }
      if (opts.keep) {
        settled = true;
        return outcome;
      }
      // Leaving: one transaction gives the run up unless an answer was recorded meanwhile
      // (its author saw this driver as the owner and left the answer to it).
      const left = await own.release(true);
      if (left === 'answered') continue;
      if (left === 'lost') return { status: 'lost' };
      settled = true;
      return outcome;
    }
  } catch (e) {
    // A recorded result that does not read: held by the caller, as a log that does not read is.
    if (e instanceof DamagedLogError) settled = true;
    throw e;
  } finally {
    await scheduler?.close();
    if (!settled) await own.release(false);
  }
}

/** Ended for good: a failed run may be retried (shop resume), so it keeps its worktree until pruned. */
const isFinal = (o: DriveOutcome): o is Extract<DriveOutcome, { status: 'completed' | 'stuck' }> =>
  o.status === 'completed' || o.status === 'stuck';

/**
 * A --worktree run that ended gives its worktree back (its branch keeps the commits). Never
 * fails the run: a worktree that cannot go stays, and shop prune removes it later.
 */
function endWorkspace(ports: EnginePorts, run: Run, keep: boolean): string | null {
  if (!run.branch || !ports.endWorkspace) return null;
  try {
    return ports.endWorkspace(run, keep);
  } catch {
    return null; // left for shop prune
  }
}

/** The owner's periodic look: a takeover or a stop request (the lease renews itself: Ownership). */
async function checkIn(ports: EnginePorts, own: Ownership): Promise<CheckIn> {
  if (own.lost.aborted) return { kind: 'lost' };
  let run: Run | null;
  try {
    run = await ports.store.getRun(own.runId);
  } catch {
    // A store out of reach now and then is no reason to stop: writes stay fenced by the token,
    // and the lease's renewal decides when the run is lost.
    return { kind: 'ok' };
  }
  if (run?.owner?.token !== own.token) {
    own.lose();
    return { kind: 'lost' };
  }
  if (run.stop) return { kind: 'stop', reason: run.stop.reason, by: run.stop.by };
  return { kind: 'ok', run };
}

async function stopNow(
  ports: EnginePorts,
  own: Ownership,
  stop: { reason: string; by: string },
): Promise<DriveOutcome> {
  // Agents a dead driver left running go first (only while their pid is still theirs).
  for (const e of await ports.store.openExecutions(own.runId))
    if (e.status === 'running' && (e.pid || e.sessionId)) await ports.killOrphan(e.pid, e.pidStart, e.sessionId);
  await ports.store.finishRun(own.token, own.runId, {
    status: 'stuck',
    reason: stop.reason,
    event: { type: 'stopped', actor: stop.by, channel: 'cli', data: { reason: stop.reason } },
  });
  return ended((await ports.store.getRun(own.runId))!);
}
