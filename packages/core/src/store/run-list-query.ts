import { toExecution, toRun, type Row } from './rows.js';
import type { RunFilter, RunWithWaiting } from './store.js';

/**
 * The SQL of listRuns and countRuns for a filter, every condition in SQL so an index does
 * the work: the status filters use runs_status, changedSince runs_updated, and newest
 * first is the rowid read backwards, so `LIMIT n` reads n rows, not the table.
 */
export function runQuery(filter: RunFilter): { where: string; params: unknown[]; order: string; limit: string } {
  const terms: string[] = [];
  const params: unknown[] = [];
  if (filter.status) {
    terms.push('status = ?');
    params.push(filter.status);
  }
  if (filter.active) terms.push(`status IN ('running','waiting','waiting_human')`);
  // The partial index runs_held finds the few held runs among all.
  if (filter.held) terms.push('held IS NOT NULL');
  if (filter.changedSince !== undefined) {
    terms.push('updated_at > ?');
    params.push(filter.changedSince);
  }
  const limit = filter.limit !== undefined && filter.limit > 0 ? ` LIMIT ${Math.floor(filter.limit)}` : '';
  // With changedSince, "+id" keeps the planner on runs_updated (a few changed rows, sorted)
  // rather than reading every run backwards to save the sort.
  const order = filter.changedSince !== undefined ? ' ORDER BY +id DESC' : ' ORDER BY id DESC';
  return { where: terms.length ? ` WHERE ${terms.join(' AND ')}` : '', params, order, limit };
}

/** The runs' ids as one parameter (a JSON array) for `run_id IN (SELECT value FROM json_each(?))`. */
const ofRuns = `run_id IN (SELECT value FROM json_each(?))`;

/** The condition of the partial index executions_open, repeated so the planner sees it may use it. */
const open = `status IN ('running','waiting','waiting_human')`;

/** What listRuns reads besides the runs, for the runs it picked only. */
export const RUN_EXTRAS = {
  // Oldest ask first: the first row of a run is the call it waits on (its waits on the world come along).
  waiting: `SELECT * FROM executions WHERE ${open} AND status IN ('waiting','waiting_human') AND ${ofRuns} ORDER BY updated_at, run_id, seq`,
  // Ordered so the newest running call of a run comes last (it wins in a map).
  running: `SELECT * FROM executions WHERE ${open} AND status = 'running' AND kind IN ('run','sh') AND ${ofRuns}
    ORDER BY run_id, COALESCE(activity_at, attempt_at, started_at)`,
  costs: `SELECT run_id, ROUND(TOTAL(cost_usd), 6) AS cost FROM executions WHERE ${ofRuns} GROUP BY run_id`,
} as const;

/**
 * listRuns' rows with what each adapter read beside them for those runs only: the call each
 * waits on (the first waiting one), the latest activity of a call running now, the total cost.
 */
export function withExtras(rows: Row[], extras: { waiting: Row[]; running: Row[]; costs: Row[] }): RunWithWaiting[] {
  const waiting = new Map<number, Row>();
  const waitsOn = new Map<number, Row[]>();
  for (const w of extras.waiting) {
    const id = Number(w.run_id);
    if (w.status === 'waiting') waitsOn.set(id, [...(waitsOn.get(id) ?? []), w]);
    else if (!waiting.has(id)) waiting.set(id, w);
  }
  const running = new Map<number, Row>();
  for (const e of extras.running) running.set(Number(e.run_id), e);
  const costs = new Map<number, number>();
  for (const c of extras.costs) costs.set(Number(c.run_id), Number(c.cost));
  return rows.map(toRun).map((r) => {
    const w = r.status === 'waiting_human' ? waiting.get(r.id) : undefined;
    const now = running.get(r.id);
    return { ...r, waiting: w ? toExecution(w) : null, waitsOn: (waitsOn.get(r.id) ?? []).map(toExecution), running: now ? toExecution(now) : null, costUsd: costs.get(r.id) ?? 0 };
  });
}
