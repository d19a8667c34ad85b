import { RunNotFoundError } from '../errors.js';
import type { Store } from '../store/store.js';
import type { SessionInfo } from '../store/session-store.js';
import { hasEnded, type Execution, type Run } from '../types.js';
import { localTime } from '../local-time.js';
import { runLook, type Liveness, type RunLook } from '../run-status.js';

export interface RunView {
  run: Run;
  /** Its calls in call order: every one, or with `last`, the latest ones and every open one. */
  executions: Execution[];
  /** How many calls the run has made (executions may hold fewer). */
  calls: number;
  /** The calls it waits on (several when parallel branches each wait), oldest first. */
  waitingAll: Execution[];
  waiting: Execution | null;
  cost: number;
  /** Its agents' Claude sessions as the store keeps them: where each lives. */
  sessions: SessionInfo[];
  /** The runs its calls started (call_workflow, start_workflow), oldest first. */
  children: Run[];
  /** How it is shown (its display status, since when its driver is gone), judged by the liveness it was read with. */
  look: RunLook;
}

/**
 * A run with its calls, the calls it waits on and its total cost. With `last`, only the
 * latest `last` calls are read (plus every one still open): a run of thousands of calls is
 * answered or shown without reading its whole log.
 */
export async function loadRunView(
  store: Store,
  liveness: Liveness,
  id: number,
  opts: { last?: number } = {},
): Promise<RunView> {
  const run = await getRunOrFail(store, id);
  const open = await store.openExecutions(id);
  const { calls, cost } = await store.executionTotals(id);
  const executions =
    opts.last === undefined
      ? await store.loadExecutions(id)
      : withOpen(await store.loadExecutions(id, opts.last), open);
  const waitingAll = hasEnded(run) ? [] : await openAsks(store, open);
  const sessions = await store.listSessions(id);
  const children = await store.listChildren(id);
  return {
    run,
    executions,
    calls,
    waiting: waitingAll[0] ?? null,
    waitingAll,
    cost,
    sessions,
    children,
    look: runLook(run, liveness),
  };
}

/** What answering needs of a run: the run and its open asks (no totals, no call history). */
export type AskView = Pick<RunView, 'run' | 'waitingAll' | 'look'>;

/** The run and its open asks, read once: the view an answer is picked from and checked against. */
export async function loadAskView(store: Store, liveness: Liveness, id: number): Promise<AskView> {
  const run = await getRunOrFail(store, id);
  return {
    run,
    waitingAll: hasEnded(run) ? [] : await openAsks(store, await store.openExecutions(id)),
    look: runLook(run, liveness),
  };
}

/** The run, or a NotFoundError that says where the runs are listed. */
export async function getRunOrFail(store: Store, id: number): Promise<Run> {
  const run = await store.getRun(id);
  if (!run) throw new RunNotFoundError(id);
  return run;
}

/** The latest calls, with the open ones older than them put back in call order. */
function withOpen(latest: Execution[], open: Execution[]): Execution[] {
  const first = latest[0]?.seq ?? Infinity;
  const older = open.filter((e) => e.seq < first);
  return older.length ? [...older, ...latest] : latest;
}

/**
 * The calls waiting for a person whose current ask has no answer yet. An answer recorded for a
 * run whose driver has not taken it in yet closes the ask all the same: it is not offered again
 * (a second answer would be refused), whatever front end shows the run.
 */
async function openAsks(store: Store, open: Execution[]): Promise<Execution[]> {
  const waiting = open.filter((e) => e.status === 'waiting_human');
  const answered = await Promise.all(waiting.map((e) => store.getAnswer(e.runId, e.key, e.ask)));
  return waiting.filter((_, i) => !answered[i]);
}

/**
 * "interrupted: its driver is gone since …; pick it up with: shop resume 3", "resuming with
 * that answer" or "stuck: why": what a run with no ask open is doing, for messages that
 * refuse an answer.
 */
export function runState(view: Pick<AskView, 'run' | 'look'>): string {
  const { run } = view;
  const gone = view.look.goneSince;
  if (gone !== null)
    return `interrupted: its driver is gone since ${localTime(gone)}; pick it up with: shop resume ${run.id}`;
  // Waiting with no ask open: each was answered, and the run is taking the answers in.
  if (run.status === 'waiting_human') return 'resuming with that answer';
  return `${run.status}${run.reason ? `: ${run.reason}` : ''}`;
}
