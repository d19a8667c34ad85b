import { METRIC_SQL, metricCountsOf, type MetricCounts } from '../metric-counts.js';
import type Database from 'better-sqlite3';
import { RunNotFoundError } from '../../errors.js';
import { hasEnded, type ReplayRecord, type Run } from '../../types.js';
import { toAnswer, toEvent, toExecution, toReplayRecord, toRun, toTimer, type Row } from '../rows.js';
import { prepare, type Statements } from './statements.js';
import { runListShape, withExtras } from '../run-list.js';
import { RUN_EXTRAS, runListSql } from './run-list-sql.js';
import type { RunFilter, RunWithWaiting } from '../store.js';

/** The SQLite adapter's reads: plain queries, no transaction needed. */
export class SqliteReads {
  protected readonly stmt: Statements;
  private readonly listStatements = new Map<string, Database.Statement>();

  constructor(
    protected readonly db: Database.Database,
    private readonly clock: () => number,
  ) {
    this.stmt = prepare(db);
  }

  /** The store's clock: the injected one (tests move it; SHOP_CLOCK_FILE), else the system's. */
  now(): number {
    return this.clock();
  }

  async getRun(id: number): Promise<Run | null> {
    const row = this.stmt.getRun.get(id) as Row | undefined;
    return row ? toRun(row) : null;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithWaiting[]> {
    const q = runListSql(runListShape(filter));
    const rows = this.query(`SELECT * FROM runs${q.where}${q.order}${q.limit}`).all(...q.params) as Row[];
    if (!rows.length) return [];
    // The calls and costs of these runs only: a page of 50 never reads every run's calls.
    const ids = JSON.stringify(rows.map((r) => Number(r.id)));
    return withExtras(rows, {
      waiting: this.query(RUN_EXTRAS.waiting).all(ids) as Row[],
      running: this.query(RUN_EXTRAS.running).all(ids) as Row[],
      costs: this.query(RUN_EXTRAS.costs).all(ids) as Row[],
    });
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    const q = runListSql(runListShape(filter));
    return Number((this.query(`SELECT COUNT(*) AS n FROM runs${q.where}`).get(...q.params) as Row).n);
  }

  async metricCounts(): Promise<MetricCounts> {
    const at = this.now();
    return metricCountsOf(at, {
      runs: this.query(METRIC_SQL.runs).all(at) as Row[],
      asks: this.query(METRIC_SQL.asks).get() as Row | undefined,
      steps: this.query(METRIC_SQL.steps).all() as Row[],
      timersDue: this.query(METRIC_SQL.timersDue).get(at) as Row | undefined,
      durations: this.query(METRIC_SQL.durations).all() as Row[],
    });
  }

  /** listRuns' statements, whose SQL depends on the filter: prepared once per shape. */
  private query(sql: string): Database.Statement {
    let stmt = this.listStatements.get(sql);
    if (!stmt) this.listStatements.set(sql, (stmt = this.db.prepare(sql)));
    return stmt;
  }

  async listOpenRuns(opts: { awake?: boolean } = {}) {
    return ((opts.awake ? this.stmt.awakeRuns : this.stmt.openRuns).all() as Row[]).map(toRun);
  }

  async lapsedSince(since: number, until: number) {
    const rows = this.query(
      `
      SELECT id AS run_id, lease_until AS at FROM runs
        WHERE status IN ('running','waiting','waiting_human') AND owner_token IS NOT NULL AND lease_until > ? AND lease_until <= ?
      UNION ALL
      SELECT run_id, expires_at AS at FROM claims WHERE expires_at > ? AND expires_at <= ?`,
    ).all(since, until, since, until) as Row[];
    return rows.map((r) => ({ runId: Number(r.run_id), at: Number(r.at) }));
  }

  async answeredRuns() {
    return (this.stmt.answeredRuns.all() as Row[]).map((r) => Number(r.run_id));
  }

  async childEndedRuns() {
    return (this.stmt.childEndedRuns.all() as Row[]).map((r) => Number(r.run_id));
  }

  async listChildren(runId: number) {
    return (this.stmt.children.all(runId) as Row[]).map(toRun);
  }

  async listWaiting() {
    const runs = new Map<number, Run>();
    return (this.stmt.waitingExecutions.all({ now: this.now() }) as Row[]).map(toExecution).flatMap((execution) => {
      if (!runs.has(execution.runId)) runs.set(execution.runId, this.mustRun(execution.runId));
      const run = runs.get(execution.runId)!;
      return hasEnded(run) ? [] : [{ run, execution }];
    });
  }

  async loadExecutions(runId: number, last?: number) {
    const rows = last === undefined ? this.stmt.executions.all(runId) : this.stmt.lastExecutions.all(runId, last);
    return (rows as Row[]).map(toExecution);
  }

  async openExecutions(runId: number) {
    return (this.stmt.openExecutions.all({ now: this.now(), runId }) as Row[]).map(toExecution);
  }

  async executionTotals(runId: number) {
    const row = this.stmt.executionTotals.get({ runId }) as Row;
    return { calls: Number(row.calls), cost: Number(row.cost), agent: row.agent == null ? null : String(row.agent) };
  }

  async loadReplayLog(runId: number): Promise<ReplayRecord[]> {
    // Only what replay compares and returns: the whole rows cost several times as much to read.
    // As arrays: better-sqlite3 makes an object row key by key, a sixth of a 10,000-call read.
    const rows = this.stmt.replayLog.raw(true).all(runId) as unknown[][];
    return rows.map(([call_key, kind, fingerprint, status, result, delivered]) =>
      toReplayRecord({ call_key, kind, fingerprint, status, result, delivered }),
    );
  }

  async getExecution(runId: number, key: string) {
    const row = this.stmt.getExecutionClaimed.get({ now: this.now(), runId, key }) as Row | undefined;
    return row ? toExecution(row) : null;
  }

  async listEvents(runId: number, afterId = 0) {
    return (this.stmt.events.all(runId, afterId) as Row[]).map(toEvent);
  }

  async lastEvents(runId: number, count: number) {
    return (this.stmt.lastEvents.all(runId, count) as Row[]).map(toEvent);
  }

  async countLogs(runId: number): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const row of this.stmt.logEvents.all(runId) as Row[]) {
      const thread = String((JSON.parse(String(row.data ?? '{}')) as { thread?: string }).thread ?? '');
      counts.set(thread, (counts.get(thread) ?? 0) + 1);
    }
    return counts;
  }

  async getAnswer(runId: number, key: string, ask: number) {
    const row = this.stmt.getAnswer.get(runId, key, ask) as Row | undefined;
    return row ? toAnswer(row) : null;
  }

  async listAnswers(runId: number) {
    return (this.stmt.listAnswers.all(runId) as Row[]).map(toAnswer);
  }

  async dueTimers(now: number, runIds?: number[]) {
    const all = (this.stmt.dueTimers.all(now) as Row[]).map(toTimer);
    if (!runIds) return all;
    const of = new Set(runIds);
    return all.filter((t) => of.has(t.runId));
  }

  async nextTimer(runIds?: number[]): Promise<number | null> {
    if (!runIds) {
      const due = (this.stmt.nextOpenTimer.get() as Row | undefined)?.due;
      return due == null ? null : Number(due);
    }
    const of = new Set(runIds);
    let next: number | null = null;
    for (const r of this.stmt.nextTimer.all() as Row[]) {
      if (!of.has(Number(r.run_id))) continue;
      const due = Number(r.due);
      if (next === null || due < next) next = due;
    }
    return next;
  }

  async runCost(runId: number): Promise<number> {
    return Number((this.stmt.runCost.get(runId) as Row).cost);
  }

  protected mustRun(runId: number): Run {
    const row = this.stmt.getRun.get(runId) as Row | undefined;
    if (!row) throw new RunNotFoundError(runId);
    return toRun(row);
  }
}
