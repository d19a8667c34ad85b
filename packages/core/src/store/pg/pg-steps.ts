import { ConflictError, LostOwnershipError, RunNotFoundError } from '../../errors.js';
import { sessionHeld } from '../../engine/session-hold.js';
import { hasEnded, type AgentMetrics, type Answer, type ExecutionStatus, type Run } from '../../types.js';
import { waitRefusal } from '../call-rules.js';
import { roundUsd, toAnswer, toExecution, toRun, type Row } from '../rows.js';
import { alreadyAnswered } from '../answered-line.js';
import { filesChangedEvent } from '../held-event.js';
import type { ActiveStatus, EventInput, RunEnd, WaitingAsk } from '../store.js';
import { WAKE_CHANNEL, type Sql } from './pg-db.js';
import { W } from './pg-write-sql.js';

/**
 * The pieces the PostgreSQL store's writes are made of, each inside the caller's transaction
 * (`q`) at the store's time `t`. The same rules as SqliteStore's private helpers.
 */

/**
 * A whole number for an integer column (times in ms, counts): SQLite keeps a fraction a caller
 * computed (a timer due in 1.5 s, a clock moved by half a second); PostgreSQL would refuse it.
 */
export const whole = (n: number | null | undefined): number | null => (n == null ? null : Math.round(n));
/** An invocation's metrics as pg-write-sql.ts's metrics(n) takes them: cost, turns, duration, then the tokens. */
export const metricParams = (m?: Partial<AgentMetrics>) => [
  m?.costUsd == null ? null : roundUsd(m.costUsd),
  whole(m?.numTurns),
  whole(m?.durationMs),
  whole(m?.tokens?.input),
  whole(m?.tokens?.output),
  whole(m?.tokens?.cacheRead),
  whole(m?.tokens?.cacheWrite),
];
const json = (v: unknown) => (v == null ? null : JSON.stringify(v));
export const notFound = (runId: number) => new RunNotFoundError(runId);
export const endedConflict = (run: { id: number; status: string; reason: string | null }) =>
  new ConflictError(`run ${run.id} has already ended (${run.status}${run.reason ? `: ${run.reason}` : ''})`);
/** A call row as the refusals (call-rules.ts) read it. */
export const callState = (row: Row | undefined) =>
  row
    ? { status: row.status as ExecutionStatus, delivered: row.delivered == null ? null : Number(row.delivered) }
    : null;

/** Appends to the run's audit trail (its counter and the row in one statement); `wake` also notifies. */
export async function event(q: Sql, runId: number, t: number, e: EventInput, wake?: string): Promise<void> {
  const params = [runId, t, e.key ?? null, e.type, e.actor, e.channel, json(e.data)];
  const rows = wake
    ? await q.query(W.eventWake, [...params, WAKE_CHANNEL, `${wake}:${runId}`])
    : await q.query(W.event, params);
  if (!rows.length) throw notFound(runId);
}

/** The run's row, locked: refused (nothing written) unless `token` owns it. */
export async function lockFenced(q: Sql, runId: number, token: string): Promise<Run> {
  const [row] = await q.query(W.lockRun, [runId]);
  if (!row) throw notFound(runId);
  if (row.owner_token !== token) throw new LostOwnershipError(runId);
  return toRun(row);
}

/**
 * Why a one-statement fenced write changed nothing: no run, another owner, or (returned) the
 * run as it stands, for the caller to say what else was wrong.
 */
export async function whyNot(
  q: Sql,
  runId: number,
  token: string,
): Promise<{ id: number; status: string; reason: string | null }> {
  const [row] = await q.query(W.runFence, [runId]);
  if (!row) throw notFound(runId);
  if (row.owner_token !== token) throw new LostOwnershipError(runId);
  return { id: runId, status: String(row.status), reason: row.reason == null ? null : String(row.reason) };
}

/**
 * One process per session: a person's shop continue holding the call refuses whatever else
 * would start on it or answer it — unless it is the hold the caller judged dead (its process
 * gone), which is cleared here, in the same transaction.
 */
export async function checkHold(
  q: Sql,
  row: Row | undefined,
  staleHold: string | null,
  doing: string,
  t: number,
  host: string,
): Promise<void> {
  if (!row || row.hold_kind !== 'continue') return;
  const runId = Number(row.run_id);
  const key = String(row.call_key);
  if (staleHold !== null && row.hold_token === staleHold) {
    await q.query(W.clearHold, [runId, key]);
    await event(q, runId, t, {
      type: 'session_closed',
      key,
      actor: 'shop',
      channel: 'engine',
      data: { why: 'its shop continue process is gone' },
    });
    return;
  }
  const exec = toExecution(row);
  throw sessionHeld(runId, exec, exec.hold!, host, doing);
}

/** The call waits for a person (its ask count goes up, its timers set); the run takes `runStatus`. */
export async function waiting(
  q: Sql,
  runId: number,
  key: string,
  ask: WaitingAsk,
  runStatus: ActiveStatus,
  t: number,
): Promise<Row> {
  const [row] = await q.query(W.markWaiting, [
    runId,
    key,
    t,
    ask.waitingFor,
    ask.awaiting,
    ask.claimTimeout ?? null,
    ...metricParams(ask.metrics),
    ask.decisions?.length ? JSON.stringify(ask.decisions) : null,
  ]);
  if (!row) {
    const [call] = await q.query(W.getExecution, [runId, key]);
    throw waitRefusal(runId, key, callState(call)) ?? new ConflictError(`run ${runId} call ${key} cannot wait now`);
  }
  await q.query(W.setRunStatus, [runId, runStatus, t]);
  await event(q, runId, t, {
    type: 'waiting',
    key,
    actor: 'shop',
    channel: 'engine',
    data: { waiting_for: ask.waitingFor, awaiting: ask.awaiting },
  });
  const timers = ask.timers ?? [];
  if (timers.length) {
    await q.query(W.insertTimers, [
      runId,
      key,
      row.ask,
      timers.map((x) => x.kind),
      timers.map((x) => whole(x.dueAt)),
      timers.map((x) => JSON.stringify(x.data)),
    ]);
  }
  return row;
}

/** The call an answer is for and the answer already recorded for its ask, if any: one read, under the run row's lock. */
export async function callAndAnswer(
  q: Sql,
  runId: number,
  key: string,
  ask: number,
): Promise<{ exec: Row | undefined; first: Row | undefined }> {
  const [row] = await q.query<{ exec: Row | null; first: Row | null }>(W.callAndAnswer, [runId, key, ask]);
  return { exec: row?.exec ?? undefined, first: row?.first ?? undefined };
}

/**
 * First answer wins: an answer for an ask already answered (`first`), or no longer waited
 * on, is a conflict. The caller holds the run row's lock and read `first` after taking it, so
 * racing answers take turns and the second finds the first. `wake` notifies LISTENers.
 */
export async function answer(
  q: Sql,
  run: Run,
  a: Omit<Answer, 'answeredAt'>,
  found: { exec: Row | undefined; first: Row | undefined },
  t: number,
  wake?: string,
) {
  const { exec, first } = found;
  if (first) throw new ConflictError(alreadyAnswered(toAnswer(first)));
  if (hasEnded(run) || !exec || exec.status !== 'waiting_human' || Number(exec.ask) !== a.ask) {
    throw new ConflictError(`run ${a.runId} call ${a.key} is no longer waiting for this answer`);
  }
  const data = { ask: a.ask, verdict: a.verdict, status: a.status, message: a.message, decisions: a.decisions };
  await q.query(W.insertAnswer, [
    a.runId,
    a.key,
    a.ask,
    a.verdict,
    a.status,
    a.message,
    json(a.decisions),
    a.responder,
    a.channel,
    t,
    JSON.stringify(data),
    wake ? WAKE_CHANNEL : null,
    wake ? `${wake}:${a.runId}` : null,
  ]);
  return { answeredAt: t };
}

/** Ends the run unless it has ended; its calls still open (running or waiting) fail with the reason. */
export async function end(q: Sql, runId: number, e: RunEnd, t: number): Promise<boolean> {
  const reason = e.reason ?? null;
  if (
    e.failedKey &&
    (await q.query(W.failExecution, [runId, e.failedKey, t, reason, ...metricParams(e.metrics)])).length
  ) {
    await event(q, runId, t, {
      type: 'execution_failed',
      key: e.failedKey,
      actor: 'shop',
      channel: 'engine',
      data: { error: reason },
    });
  }
  if (e.held && (await q.query(W.setHeld, [runId, JSON.stringify(e.held)])).length)
    await event(q, runId, t, filesChangedEvent(e.held));
  // Calls still open are dead with the run (their processes were killed first) — but a held run's step, resumed from its report.
  const ended = await q.query(W.endRun, [
    runId,
    e.status,
    reason,
    e.result === undefined ? null : JSON.stringify(e.result),
    t,
    `the run ended ${e.status}${reason ? `: ${reason}` : ''}`,
    e.event.key ?? null,
    e.event.type,
    e.event.actor,
    e.event.channel,
    json(e.event.data),
    e.held?.key ?? null,
  ]);
  return ended.length > 0;
}
