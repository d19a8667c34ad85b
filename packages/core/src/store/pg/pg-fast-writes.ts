import { ConflictError } from '../../errors.js';
import type { AgentMetrics, Execution, RunStatus } from '../../types.js';
import { completeRefusal, startRefusal } from '../call-rules.js';
import { toExecution } from '../rows.js';
import type { Activity, EventInput, NewExecution } from '../store.js';
import type { PgDb, Sql } from './pg-db.js';
import { callState, endedConflict, metricParams, notFound, whole, whyNot } from './pg-steps.js';
import { W } from './pg-write-sql.js';

const UNIQUE_VIOLATION = '23505';

/**
 * The writes on a step's path, one statement each: the fence (the owner token in the run
 * row's UPDATE or FOR UPDATE), the run's counters and the audit event go together, so a step
 * costs one round trip per write and the statement is its own transaction. When a statement
 * changes nothing, a read says why (no run, another owner, an ended run) — the slow path only.
 */
export class FastWrites {
  constructor(private readonly db: PgDb) {}

  async startExecution(token: string, input: NewExecution, t: number): Promise<Execution> {
    return this.insertExecution(this.db, token, input, t);
  }

  /** A new call, running (an agent's step takes its session's hold); on `q`, a transaction's when it goes on (a pause). */
  async insertExecution(q: Sql, token: string, input: NewExecution, t: number): Promise<Execution> {
    const holds = input.kind === 'run' && !input.waiting;
    let rows;
    try {
      rows = await q.query(W.startExecution, [
        input.runId,
        token,
        t,
        input.key,
        input.kind,
        input.agent,
        input.fingerprint,
        input.sessionId,
        input.cwd,
        input.prompt,
        JSON.stringify(input.request ?? null),
        input.signalPath,
        holds,
      ]);
    } catch (e) {
      // The key is the guard: a second start of a call is refused by the unique index itself.
      if ((e as { code?: string }).code === UNIQUE_VIOLATION)
        throw startRefusal({ id: input.runId, status: 'running' }, input.key, true)!;
      throw e;
    }
    if (rows[0]) return toExecution(rows[0]);
    const run = await whyNot(q, input.runId, token);
    throw startRefusal({ id: run.id, status: run.status as RunStatus }, input.key, false) ?? endedConflict(run);
  }

  async completeExecution(
    token: string,
    runId: number,
    key: string,
    result: unknown,
    metrics: AgentMetrics | undefined,
    t: number,
  ): Promise<number> {
    const [row] = await this.db.query(W.completeExecution, [
      runId,
      token,
      t,
      key,
      JSON.stringify(result ?? null),
      ...metricParams(metrics),
      summaryData(result),
    ]);
    if (row) return Number(row.n);
    await whyNot(this.db, runId, token);
    const [call] = await this.db.query(W.getExecution, [runId, key]);
    throw (
      completeRefusal(runId, key, callState(call)) ??
      new ConflictError(`run ${runId} call ${key} could not complete`, [{ verb: 'status', handle: String(runId) }])
    );
  }

  async setActivity(token: string, runId: number, key: string, activity: Activity, t: number): Promise<void> {
    const progress = [whole(activity.numTurns), whole(activity.durationMs)];
    const [row] = await this.db.query(W.setActivity, [runId, token, t, key, activity.text, ...progress]);
    if (!row?.ok) await whyNot(this.db, runId, token);
  }

  /** The agent's pid, and its audit event (`started`) in the same statement when given. */
  async setPid(
    token: string,
    runId: number,
    key: string,
    { pid, pidStart, started }: { pid: number | null; pidStart: string | null; started?: EventInput },
    t: number,
  ): Promise<void> {
    const params = [runId, token, t, key, pid, pidStart];
    const [row] = started
      ? await this.db.query(W.setPidStarted, [...params, ...eventParams(started)])
      : await this.db.query(W.setPid, params);
    if (!row?.ok) await whyNot(this.db, runId, token);
  }

  async setSessionId(token: string, runId: number, key: string, sessionId: string, t: number): Promise<void> {
    const [row] = await this.db.query(W.setSessionId, [runId, token, t, key, sessionId]);
    if (!row?.ok) await whyNot(this.db, runId, token);
  }

  async setWorkspace(token: string, runId: number, workspace: string, branch: string | null, t: number): Promise<void> {
    if (!(await this.db.query(W.setWorkspace, [runId, token, workspace, branch, t])).length)
      await whyNot(this.db, runId, token);
  }

  /** Audit-trail entries: a driver's own (log lines) fenced by its token, anyone's on an existing run. */
  async appendEvent(token: string | null, runId: number, e: EventInput, t: number): Promise<void> {
    const params = [runId, t, ...eventParams(e)];
    const rows = token ? await this.db.query(W.fencedEvent, [...params, token]) : await this.db.query(W.event, params);
    if (rows.length) return;
    if (token) await whyNot(this.db, runId, token);
    throw notFound(runId);
  }
}

/** An event's own columns as statement parameters: key, type, actor, channel, data. */
function eventParams(e: EventInput): unknown[] {
  return [e.key ?? null, e.type, e.actor, e.channel, e.data ? JSON.stringify(e.data) : null];
}

/** The audit trail's note of a result: its status and summary, when it has them. */
function summaryData(result: unknown): string | null {
  if (result && typeof result === 'object' && 'status' in result) {
    const r = result as Record<string, unknown>;
    return JSON.stringify({ status: r.status, summary: r.summary ?? r.reason ?? null });
  }
  return null;
}
