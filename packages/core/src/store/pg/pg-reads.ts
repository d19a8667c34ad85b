import { METRIC_SQL, metricCountsOf, type MetricCounts } from '../metric-counts.js';
import { RunNotFoundError } from '../../errors.js';
import { hasEnded, type ReplayRecord, type Run } from '../../types.js';
import { toAnswer, toEvent, toExecution, toReplayRecord, toRun, toTimer } from '../rows.js';
import { runListShape, withExtras } from '../run-list.js';
import type { RunFilter, RunWithWaiting } from '../store.js';
import type { PgDb } from './pg-db.js';
import { CLAIM_COLUMNS, OPEN, PG_RUN_EXTRAS, claimJoin, pgRunListSql, totalCost } from './pg-sql.js';

/**
 * A time or count bound to an integer column: PostgreSQL refuses a fraction there (SQLite
 * compares it). For whole-number columns `x > t` and `x <= t` hold exactly when they hold for floor(t).
 */
const int = (n: number) => Math.floor(n);
/** SQLite's LIMIT: a negative one is no limit (NULL here). */
const limitOf = (n: number) => (n < 0 ? null : int(n));

/**
 * The PostgreSQL adapter's reads: plain queries on the pool, no transaction needed. The same
 * results in the same order as SqliteReads (the contract suite and the e2e test compare them);
 * a claim lasts by the database's clock (`db.now()`).
 */
export class PgReads {
  constructor(protected readonly db: PgDb) {}

  /** The store's clock (ms): the database's, plus a test offset when one was injected. */
  now(): number {
    return this.db.now();
  }

  async getRun(id: number): Promise<Run | null> {
    const [row] = await this.db.query('SELECT * FROM runs WHERE id = $1', [id]);
    return row ? toRun(row) : null;
  }

  async listRuns(filter: RunFilter = {}): Promise<RunWithWaiting[]> {
    const q = pgRunListSql(runListShape(filter));
    const rows = await this.db.query(`SELECT * FROM runs${q.where}${q.order}${q.limit}`, q.params);
    if (!rows.length) return [];
    // The calls and costs of these runs only: a page of 50 never reads every run's calls.
    const ids = [rows.map((r) => Number(r.id))];
    const [waitingRows, runningRows, costRows] = await Promise.all([
      this.db.query(PG_RUN_EXTRAS.waiting, ids),
      this.db.query(PG_RUN_EXTRAS.running, ids),
      this.db.query(PG_RUN_EXTRAS.costs, ids),
    ]);
    return withExtras(rows, { waiting: waitingRows, running: runningRows, costs: costRows });
  }

  async countRuns(filter: RunFilter = {}): Promise<number> {
    const q = pgRunListSql(runListShape(filter));
    const [row] = await this.db.query(`SELECT COUNT(*) AS n FROM runs${q.where}`, q.params);
    return Number(row!.n);
  }

  async metricCounts(): Promise<MetricCounts> {
    const at = Math.round(this.now());
    const n = (sql: string) => sql.replace('?', '$1');
    const [runs, [asks], steps, [timersDue], durations] = await Promise.all([
      this.db.query(n(METRIC_SQL.runs), [at]),
      this.db.query(METRIC_SQL.asks),
      this.db.query(METRIC_SQL.steps),
      this.db.query(n(METRIC_SQL.timersDue), [at]),
      this.db.query(METRIC_SQL.durations),
    ]);
    return metricCountsOf(at, { runs, asks, steps, timersDue, durations });
  }

  async listOpenRuns(opts: { awake?: boolean } = {}): Promise<Run[]> {
    const which = opts.awake ? `status IN ('running','waiting_human')` : OPEN;
    return (await this.db.query(`SELECT * FROM runs WHERE ${which} ORDER BY id`)).map(toRun);
  }

  async lapsedSince(since: number, until: number) {
    // In SQLite's order: leases as its status index reads them, then claims by their key.
    const rows = await this.db.query(
      `
      SELECT run_id, at FROM (
        SELECT 0 AS part, status, id AS run_id, '' AS call_key, 0 AS ask, lease_until AS at FROM runs
          WHERE ${OPEN} AND owner_token IS NOT NULL AND lease_until > $1 AND lease_until <= $2
        UNION ALL
        SELECT 1, '', run_id, call_key, ask, expires_at FROM claims WHERE expires_at > $1 AND expires_at <= $2
      ) lapsed ORDER BY part, status, run_id, call_key COLLATE "C", ask`,
      [int(since), int(until)],
    );
    return rows.map((r) => ({ runId: Number(r.run_id), at: Number(r.at) }));
  }

  async childEndedRuns(): Promise<number[]> {
    const rows = await this.db
      .query(`SELECT DISTINCT e.run_id FROM executions e JOIN runs c ON c.id = e.wait_run JOIN runs r ON r.id = e.run_id
      WHERE e.wait_run IS NOT NULL AND e.status = 'waiting' AND c.status IN ('completed','stuck','failed') AND r.${OPEN} ORDER BY e.run_id`);
    return rows.map((r) => Number(r.run_id));
  }

  async listChildren(runId: number): Promise<Run[]> {
    return (await this.db.query('SELECT * FROM runs WHERE parent_id = $1 ORDER BY id', [runId])).map(toRun);
  }

  async answeredRuns(): Promise<number[]> {
    // Only runs not ended: an ended run's answer is taken in by a resume, not by a worker's pass.
    const rows = await this.db.query(`SELECT DISTINCT e.run_id FROM executions e
      JOIN answers a ON a.run_id = e.run_id AND a.call_key = e.call_key AND a.ask = e.ask
      JOIN runs r ON r.id = e.run_id WHERE e.status = 'waiting_human' AND r.${OPEN} ORDER BY e.run_id`);
    return rows.map((r) => Number(r.run_id));
  }

  async listWaiting() {
    // An ask already answered is not open to anyone, even while its driver has yet to take the answer in.
    const rows = await this.db.query(
      `SELECT e.*, ${CLAIM_COLUMNS} FROM executions e ${claimJoin('$1')}
      JOIN runs r ON r.id = e.run_id AND r.${OPEN}
      WHERE e.status = 'waiting_human'
        AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.run_id = e.run_id AND a.call_key = e.call_key AND a.ask = e.ask)
      ORDER BY e.updated_at, e.run_id, e.seq`,
      [this.now()],
    );
    const executions = rows.map(toExecution);
    const runs = new Map<number, Run>();
    const ids = [...new Set(executions.map((e) => e.runId))];
    if (ids.length)
      for (const r of await this.db.query('SELECT * FROM runs WHERE id = ANY($1::bigint[])', [ids]))
        runs.set(Number(r.id), toRun(r));
    return executions.flatMap((execution) => {
      const run = runs.get(execution.runId);
      return run && !hasEnded(run) ? [{ run, execution }] : [];
    });
  }

  async loadExecutions(runId: number, last?: number) {
    const rows =
      last === undefined
        ? await this.db.query('SELECT * FROM executions WHERE run_id = $1 ORDER BY seq', [runId])
        : await this.db.query(
            'SELECT * FROM (SELECT * FROM executions WHERE run_id = $1 ORDER BY seq DESC LIMIT $2) e ORDER BY seq',
            [runId, limitOf(last)],
          );
    return rows.map(toExecution);
  }

  async openExecutions(runId: number) {
    const rows = await this.db.query(
      `SELECT e.*, ${CLAIM_COLUMNS} FROM executions e ${claimJoin('$1')}
      WHERE e.${OPEN} AND e.run_id = $2 ORDER BY e.seq`,
      [this.now(), runId],
    );
    return rows.map(toExecution);
  }

  async executionTotals(runId: number) {
    const [row] = await this.db.query(
      `SELECT COUNT(*) AS calls, ${totalCost()} AS cost,
      (SELECT agent FROM executions WHERE run_id = $1 AND agent IS NOT NULL ORDER BY seq DESC LIMIT 1) AS agent
      FROM executions WHERE run_id = $1`,
      [runId],
    );
    return {
      calls: Number(row!.calls),
      cost: Number(row!.cost),
      agent: row!.agent == null ? null : String(row!.agent),
    };
  }

  async loadReplayLog(runId: number): Promise<ReplayRecord[]> {
    // Only what replay compares and returns: the whole rows cost several times as much to read.
    const rows = await this.db.query(
      'SELECT call_key, kind, fingerprint, status, result, delivered FROM executions WHERE run_id = $1 ORDER BY seq',
      [runId],
    );
    return rows.map(toReplayRecord);
  }

  async getExecution(runId: number, key: string) {
    // For readers outside the store: with the claim on its open ask, if one lasts.
    const [row] = await this.db.query(
      `SELECT e.*, ${CLAIM_COLUMNS} FROM executions e ${claimJoin('$1')}
      WHERE e.run_id = $2 AND e.call_key = $3`,
      [this.now(), runId, key],
    );
    return row ? toExecution(row) : null;
  }

  async listEvents(runId: number, afterId = 0) {
    return (
      await this.db.query('SELECT * FROM events WHERE run_id = $1 AND id > $2 ORDER BY id', [runId, int(afterId)])
    ).map(toEvent);
  }

  async lastEvents(runId: number, count: number) {
    const rows = await this.db.query(
      'SELECT * FROM (SELECT * FROM events WHERE run_id = $1 ORDER BY id DESC LIMIT $2) e ORDER BY id',
      [runId, limitOf(count)],
    );
    return rows.map(toEvent);
  }

  async countLogs(runId: number): Promise<Map<string, number>> {
    const counts = new Map<string, number>();
    for (const row of await this.db.query(`SELECT data FROM events WHERE run_id = $1 AND type = 'log'`, [runId])) {
      const thread = String((JSON.parse(String(row.data ?? '{}')) as { thread?: string }).thread ?? '');
      counts.set(thread, (counts.get(thread) ?? 0) + 1);
    }
    return counts;
  }

  async getAnswer(runId: number, key: string, ask: number) {
    const [row] = await this.db.query('SELECT * FROM answers WHERE run_id = $1 AND call_key = $2 AND ask = $3', [
      runId,
      key,
      ask,
    ]);
    return row ? toAnswer(row) : null;
  }

  async listAnswers(runId: number) {
    // Answers are immutable and a run's are few: ties in time fall back to the order asks were made.
    const rows = await this.db.query('SELECT * FROM answers WHERE run_id = $1 ORDER BY answered_at, ask, call_key', [
      runId,
    ]);
    return rows.map(toAnswer);
  }

  async dueTimers(now: number, runIds?: number[]) {
    const rows = runIds
      ? await this.db.query(
          'SELECT * FROM timers WHERE fired_at IS NULL AND due_at <= $1 AND run_id = ANY($2::bigint[]) ORDER BY due_at, id',
          [int(now), runIds],
        )
      : await this.db.query('SELECT * FROM timers WHERE fired_at IS NULL AND due_at <= $1 ORDER BY due_at, id', [
          int(now),
        ]);
    return rows.map(toTimer);
  }

  async nextTimer(runIds?: number[]): Promise<number | null> {
    const [row] = runIds
      ? await this.db.query(
          'SELECT MIN(due_at) AS due FROM timers WHERE fired_at IS NULL AND run_id = ANY($1::bigint[])',
          [runIds],
        )
      : await this.db.query(
          `SELECT MIN(t.due_at) AS due FROM timers t JOIN runs r ON r.id = t.run_id WHERE t.fired_at IS NULL AND r.${OPEN}`,
        );
    return row?.due == null ? null : Number(row.due);
  }

  async runCost(runId: number): Promise<number> {
    const [row] = await this.db.query(`SELECT ${totalCost()} AS cost FROM executions WHERE run_id = $1`, [runId]);
    return Number(row!.cost);
  }

  protected async mustRun(runId: number, q: Pick<PgDb, 'query'> = this.db): Promise<Run> {
    const [row] = await q.query('SELECT * FROM runs WHERE id = $1', [runId]);
    if (!row) throw new RunNotFoundError(runId);
    return toRun(row);
  }
}
