import { displayStatus, runLook, type Liveness } from '../run-status.js';
import type { RunFilter, RunWithWaiting, Store } from '../store/store.js';
import type { Execution, RunStatus } from '../types.js';
import { eventJson, executionJson, pendingJson, rulesJson, runJson } from './json-views.js';
import { workingCall } from './working-call.js';
import { loadRunView, type RunView } from './run-view.js';
import type { ActionJson, AnsweredJson, EventJson, InboxRowJson, LogJson, RunDetailJson, RunJson } from './shapes.js';

/**
 * The read operations every front end uses (CLI --json, TUI, server /api): each returns the
 * documented shape (shapes.ts), so what a script reads from `shop … --json` and from
 * `/api/…` is one thing.
 */

/** Every open ask across runs, oldest first (shop inbox, GET /api/inbox). */
export async function inboxJson(store: Store, liveness: Liveness): Promise<InboxRowJson[]> {
  return (await store.listWaiting()).map(({ run, execution }) => ({
    run: run.id,
    spec: run.spec,
    run_status: displayStatus(run, liveness) as InboxRowJson['run_status'],
    parent: run.parentId,
    ...pendingJson(run.id, execution),
  }));
}

export interface RunsQuery {
  active?: boolean;
  /** A display status (shapes' displayStatuses): "running" and "interrupted" told apart here. */
  status?: string;
  /** At most this many (0 or absent: all). */
  limit?: number;
}

/**
 * The runs to show, newest first, and how many match in all. "running" and "interrupted" are
 * told apart by whether the run's driver is alive, which only this process can check: those
 * are read whole (they are few) and cut here; every other filter is cut by the store's query.
 */
export async function runsJson(
  store: Store,
  liveness: Liveness,
  want: RunsQuery,
): Promise<{ rows: RunJson[]; total: number }> {
  const limit = want.limit ?? 0;
  const toJson = (r: RunWithWaiting) => runJson(r, runLook(r, liveness), r.waiting, r.costUsd, r.running, r.waitsOn);
  if (want.status === 'running' || want.status === 'interrupted') {
    const all = (await store.listRuns({ status: 'running' })).map(toJson).filter((r) => r.status === want.status);
    return { rows: limit ? all.slice(0, limit) : all, total: all.length };
  }
  const filter: RunFilter = { active: want.active, status: want.status as RunStatus | undefined };
  const rows = (await store.listRuns({ ...filter, limit })).map(toJson);
  return { rows, total: limit && rows.length === limit ? await store.countRuns(filter) : rows.length };
}

/** One run with its calls (the latest `last` and every open one, or all) and its open asks (shop status, GET /api/runs/:id). */
export async function runDetailJson(
  store: Store,
  liveness: Liveness,
  id: number,
  opts: { last?: number } = {},
): Promise<RunDetailJson> {
  return detailJson(await loadRunView(store, liveness, id, opts));
}

/** runDetailJson of a view already read (shop status prints its lines from the same view). */
export function detailJson(view: RunView): RunDetailJson {
  const { run, executions, waiting, waitingAll, cost } = view;
  const id = run.id;
  return {
    ...runJson(run, view.look, waiting, cost, workingCall(executions), waitsOnOf(executions)),
    calls: view.calls,
    executions: executions.map((e) => executionJson(e)),
    pending: waiting ? pendingJson(id, waiting) : null,
    asks: waitingAll.map((e) => pendingJson(id, e)),
    sessions: view.sessions.map((s) => ({
      call: s.key,
      session_id: s.sessionId,
      host: s.host,
      kept: s.gzBytes === null ? ('pinned' as const) : ('store' as const),
      bytes: s.bytes,
      stored_bytes: s.gzBytes,
      saved_at: new Date(s.savedAt).toISOString(),
    })),
    rules: run.rules && rulesJson(run.rules),
    children: view.children.map((c) => ({
      id: c.id,
      spec: c.spec,
      key: c.parentKey ?? '',
      status: c.status,
      reason: c.reason,
    })),
    held: run.held && {
      key: run.held.key,
      handle: `${id}.${run.held.key}`,
      agent: run.held.agent,
      files: run.held.files,
      interrupted: run.held.interrupted === true,
      at: new Date(run.held.at).toISOString(),
    },
  };
}

/** The run, every call (with its prompt: a replayable record) and the audit trail in order (shop log --json). */
export async function logJson(store: Store, liveness: Liveness, id: number): Promise<LogJson> {
  const { run, executions, waiting, cost, look } = await loadRunView(store, liveness, id);
  const events = await store.listEvents(id);
  return {
    run: runJson(run, look, waiting, cost, workingCall(executions), waitsOnOf(executions)),
    executions: executions.map((e) => executionJson(e, true)),
    events: events.map(eventJson),
  };
}

/** The run's audit trail after event `afterId` (live updates: shop log -f, the server's event stream). */
/** The run's latest `count` events, in order (a page of a long trail). */
export async function recentEvents(store: Store, id: number, count: number): Promise<EventJson[]> {
  return (await store.lastEvents(id, count)).map(eventJson);
}

export async function eventsSince(store: Store, id: number, afterId = 0): Promise<EventJson[]> {
  return (await store.listEvents(id, afterId)).map(eventJson);
}

/**
 * What an acting command did (run, resume, stop, approve, … with --json): the run as it is
 * now, the ask it answered, the asks open now with their handles, and its exit code. An ask
 * answered but left to a live driver is not among the open ones.
 */
export async function actionJson(
  store: Store,
  liveness: Liveness,
  act: { command: string; runId: number; answered: AnsweredJson | null; exitCode: number },
): Promise<ActionJson> {
  const view = await loadRunView(store, liveness, act.runId, { last: 0 });
  return {
    command: act.command,
    run: view.run.id,
    answered: act.answered,
    status: view.look.status as ActionJson['status'],
    reason: view.run.reason,
    result: view.run.result,
    exit_code: act.exitCode,
    asks: view.waitingAll.map((e) => pendingJson(view.run.id, e)),
  };
}

/** A run's calls waiting on the world (time, events, other runs). */
const waitsOnOf = (executions: Execution[]) => executions.filter((e) => e.status === 'waiting');
