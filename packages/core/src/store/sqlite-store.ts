import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ConflictError, NotFoundError } from '../errors.js';
import { hasEnded, type AgentMetrics, type Answer, type ReplayRecord, type Run, type RunEvent } from '../types.js';
import { toAnswer, toEvent, toExecution, toRun, type Row } from './rows.js';
import { ownedByOther } from '../run-status.js';
import { prepare, type Statements } from './statements.js';
import type { EventInput, NewExecution, NewRun, RunFilter, RunWithWaiting, Store } from './store.js';

export const SCHEMA_VERSION = 1;
const schemaFile = fileURLToPath(new URL('../../../../schema.sql', import.meta.url));

type Db = Database.Database;

/** Opens (creating if needed) a store at `file`; ":memory:" gives an in-memory twin. */
export function openSqliteStore(file: string, now: () => number = Date.now): Store {
  const db = new Database(file);
  // Before anything that may need a lock, so every statement waits for a busy store.
  db.pragma('busy_timeout = 5000');
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  migrate(db);
  return new SqliteStore(db, now);
}

function migrate(db: Db): void {
  const version = Number(db.pragma('user_version', { simple: true }));
  if (version > SCHEMA_VERSION) {
    throw new ConflictError(`the store was written by a newer Shop (schema ${version} > ${SCHEMA_VERSION}); upgrade Shop`);
  }
  if (version === SCHEMA_VERSION) return;
  db.transaction(() => {
    db.exec(readFileSync(schemaFile, 'utf8'));
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  })();
}

const metricCols = (m?: AgentMetrics) => ({
  cost: m?.costUsd ?? null,
  turns: m?.numTurns ?? null,
  duration: m?.durationMs ?? null,
});

class SqliteStore implements Store {
  private readonly stmt: Statements;
  constructor(private readonly db: Db, private readonly now: () => number) {
    this.stmt = prepare(db);
  }

  async createRun(input: NewRun): Promise<Run> {
    return this.tx(() => {
      const t = this.now();
      const info = this.stmt.insertRun.run({ ...input, t });
      const id = Number(info.lastInsertRowid);
      this.event(id, { type: 'run_started', actor: input.actor, channel: 'cli', data: { spec: input.spec, prompt: input.prompt } });
      return toRun(this.stmt.getRun.get(id) as Row);
    });
  }

  async getRun(id: number): Promise<Run | null> {
    const row = this.stmt.getRun.get(id) as Row | undefined;
    return row ? toRun(row) : null;
  }

  async setWorkspace(runId: number, workspace: string, branch: string | null) {
    this.stmt.setWorkspace.run(workspace, branch, this.now(), runId);
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithWaiting[]> {
    const rows = this.stmt.listRuns.all() as Row[];
    const waiting = new Map<number, Row>();
    for (const w of this.stmt.waitingExecutions.all() as Row[]) waiting.set(Number(w.run_id), w);
    const costs = new Map<number, number>();
    for (const c of this.stmt.costs.all() as Row[]) costs.set(Number(c.run_id), Number(c.cost));
    return rows
      .map(toRun)
      .filter((r) => (filter.status ? r.status === filter.status : true))
      .filter((r) => (filter.active ? !hasEnded(r) : true))
      .map((r) => {
        const w = waiting.get(r.id);
        return { ...r, waiting: w ? toExecution(w) : null, costUsd: costs.get(r.id) ?? 0 };
      });
  }

  async listWaiting() {
    const runs = new Map<number, Run>();
    return (this.stmt.waitingExecutions.all() as Row[]).map(toExecution).flatMap((execution) => {
      if (!runs.has(execution.runId)) runs.set(execution.runId, toRun(this.stmt.getRun.get(execution.runId) as Row));
      const run = runs.get(execution.runId)!;
      return run.status === 'waiting_human' ? [{ run, execution }] : [];
    });
  }

  async loadExecutions(runId: number) {
    return (this.stmt.executions.all(runId) as Row[]).map(toExecution);
  }

  async loadReplayLog(runId: number): Promise<ReplayRecord[]> {
    // Only what replay compares and returns: the whole rows cost several times as much to read.
    return (this.stmt.replayLog.all(runId) as Row[]).map((r) => ({
      key: String(r.call_key), fingerprint: String(r.fingerprint), status: r.status as ReplayRecord['status'],
      result: r.result == null ? null : JSON.parse(String(r.result)),
    }));
  }

  async getExecution(runId: number, key: string) {
    const row = this.stmt.getExecution.get(runId, key) as Row | undefined;
    return row ? toExecution(row) : null;
  }

  async listEvents(runId: number) {
    return (this.stmt.events.all(runId) as Row[]).map(toEvent);
  }

  async countEvents(runId: number, type: string): Promise<number> {
    return Number((this.stmt.countEvents.get(runId, type) as Row).n);
  }

  async acquireLease(runId: number, pid: number, until: number, isAlive: (pid: number) => boolean) {
    this.tx(() => {
      const run = this.mustRun(runId);
      if (ownedByOther(run, pid, this.now(), isAlive)) {
        throw new ConflictError(`run ${runId} is being driven by process ${run.ownerPid}; wait for it or stop it with: shop stop ${runId} --reason "…"`);
      }
      this.stmt.setLease.run(pid, until, this.now(), runId);
    });
  }

  async renewLease(runId: number, pid: number, until: number) {
    this.stmt.renewLease.run(until, runId, pid);
  }

  async releaseLease(runId: number, pid: number) {
    this.stmt.releaseLease.run(runId, pid);
  }

  async startExecution(input: NewExecution) {
    return this.tx(() => {
      const t = this.now();
      const seq = Number((this.stmt.nextSeq.get(input.runId) as Row).seq);
      this.stmt.insertExecution.run({
        ...input, seq, t, request: JSON.stringify(input.request ?? null),
      });
      this.event(input.runId, {
        type: 'execution_started', key: input.key, actor: 'shop', channel: 'engine',
        data: { kind: input.kind, agent: input.agent, session_id: input.sessionId },
      });
      return toExecution(this.stmt.getExecution.get(input.runId, input.key) as Row);
    });
  }

  async restartExecution(runId: number, key: string) {
    this.tx(() => {
      this.stmt.restartExecution.run(this.now(), runId, key);
      this.stmt.setRunStatus.run('running', this.now(), runId);
      this.event(runId, { type: 'execution_restarted', key, actor: 'shop', channel: 'engine' });
    });
  }

  async setExecutionPid(runId: number, key: string, pid: number | null) {
    this.stmt.setPid.run(pid, this.now(), runId, key);
  }

  async completeExecution(runId: number, key: string, result: unknown, metrics?: AgentMetrics) {
    this.tx(() => {
      const t = this.now();
      this.stmt.completeExecution.run({ ...metricCols(metrics), result: JSON.stringify(result ?? null), t, runId, key });
      this.stmt.setRunStatus.run('running', t, runId);
      this.event(runId, { type: 'execution_finished', key, actor: 'shop', channel: 'engine', data: summarize(result) });
    });
  }

  async failExecution(runId: number, key: string, error: string, metrics?: AgentMetrics) {
    this.tx(() => {
      const t = this.now();
      const changed = this.stmt.failExecution.run({ ...metricCols(metrics), error, t, runId, key }).changes;
      if (changed) this.event(runId, { type: 'execution_failed', key, actor: 'shop', channel: 'engine', data: { error } });
      this.endRun(runId, 'failed', { reason: error }, { type: 'failed', key, actor: 'shop', channel: 'engine', data: { reason: error } });
    });
  }

  async markWaiting(runId: number, key: string, waitingFor: string, awaiting: string | null, metrics?: AgentMetrics) {
    this.tx(() => {
      const t = this.now();
      this.stmt.markWaiting.run({ ...metricCols(metrics), waitingFor, awaiting, t, runId, key });
      this.stmt.setRunStatus.run('waiting_human', t, runId);
      this.event(runId, { type: 'waiting', key, actor: 'shop', channel: 'engine', data: { waiting_for: waitingFor, awaiting } });
    });
  }

  async recordAnswer(answer: Omit<Answer, 'answeredAt'>): Promise<Answer> {
    return this.tx(() => {
      const first = this.stmt.getAnswer.get(answer.runId, answer.key, answer.ask) as Row | undefined;
      if (first) throw new ConflictError(alreadyAnswered(toAnswer(first)));
      const exec = this.stmt.getExecution.get(answer.runId, answer.key) as Row | undefined;
      if (!exec || exec.status !== 'waiting_human' || Number(exec.ask) !== answer.ask) {
        throw new ConflictError(`run ${answer.runId} call ${answer.key} is no longer waiting for this answer`);
      }
      const t = this.now();
      this.stmt.insertAnswer.run({
        ...answer, decisions: answer.decisions ? JSON.stringify(answer.decisions) : null, t,
      });
      this.event(answer.runId, {
        type: 'human_answered', key: answer.key, actor: answer.responder, channel: answer.channel,
        data: { ask: answer.ask, verdict: answer.verdict, status: answer.status, message: answer.message, decisions: answer.decisions },
      });
      return { ...answer, answeredAt: t };
    });
  }

  async getAnswer(runId: number, key: string, ask: number) {
    const row = this.stmt.getAnswer.get(runId, key, ask) as Row | undefined;
    return row ? toAnswer(row) : null;
  }

  async listAnswers(runId: number) {
    return (this.stmt.listAnswers.all(runId) as Row[]).map(toAnswer);
  }

  async setRunStatus(runId: number, status: 'running' | 'waiting_human', event: EventInput) {
    this.tx(() => {
      this.stmt.setRunStatus.run(status, this.now(), runId);
      this.event(runId, event);
    });
  }

  async finishRun(runId: number, status: 'completed' | 'stuck' | 'failed', detail: { reason?: string; result?: unknown }, event: EventInput) {
    return this.tx(() => this.endRun(runId, status, detail, event));
  }

  async appendEvent(runId: number, event: EventInput) {
    this.event(runId, event);
  }

  close() {
    this.db.close();
  }

  /**
   * A write transaction that takes the write lock first (BEGIN IMMEDIATE): a deferred one that
   * reads, then writes fails at once with "database is locked" when another process wrote
   * meanwhile — busy_timeout does not apply to that upgrade.
   */
  private tx<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  private endRun(runId: number, status: string, detail: { reason?: string; result?: unknown }, event: EventInput): boolean {
    const t = this.now();
    const changed = this.stmt.endRun.run({
      status, reason: detail.reason ?? null,
      result: detail.result === undefined ? null : JSON.stringify(detail.result), t, runId,
    }).changes;
    if (changed) this.event(runId, event);
    return changed > 0;
  }

  private mustRun(runId: number): Run {
    const row = this.stmt.getRun.get(runId) as Row | undefined;
    if (!row) throw new NotFoundError(`no run ${runId}; see runs with: shop list`);
    return toRun(row);
  }

  private event(runId: number, e: EventInput) {
    this.stmt.insertEvent.run(runId, e.key ?? null, e.type, e.actor, e.channel, e.data ? JSON.stringify(e.data) : null, this.now());
  }
}

/** "run 3 call 6 was already answered approved by alice at …" — for the second answer's error. */
export function alreadyAnswered(a: Answer): string {
  return answeredLine(a.runId, a.key, a.verdict ?? a.status ?? 'with decisions', a.responder, a.channel, a.answeredAt);
}

/** The same line from the audit trail's human_answered event (also written for answers given in an agent's session). */
export function alreadyAnsweredEvent(e: RunEvent): string {
  const d = e.data ?? {};
  return answeredLine(e.runId, e.key ?? '?', String(d.verdict ?? d.status ?? 'with decisions'), e.actor, e.channel, e.at);
}

function answeredLine(runId: number, key: string, what: string, who: string, channel: string, at: number): string {
  return `run ${runId} call ${key} was already answered ${what} by ${who} (${channel}) at ${new Date(at).toISOString()}`;
}

function summarize(result: unknown): Record<string, unknown> | null {
  if (result && typeof result === 'object' && 'status' in result) {
    const r = result as Record<string, unknown>;
    return { status: r.status, summary: r.summary ?? r.reason ?? null };
  }
  return null;
}
