import type { RunCondition, RunListShape } from '../run-list.js';

/** A condition of the runs list in SQLite's words, with its parameter if it takes one. */
function term(c: RunCondition): { sql: string; param?: unknown } {
  switch (c.kind) {
    case 'status':
      return { sql: 'status = ?', param: c.status };
    case 'active':
      return { sql: `status IN ('queued','running','waiting','waiting_human')` };
    // The partial index runs_held finds the few held runs among all.
    case 'held':
      return { sql: 'held IS NOT NULL' };
    case 'changedSince':
      return { sql: 'updated_at > ?', param: c.after };
  }
}

/**
 * The SQL of listRuns and countRuns for a shape: the status filters use runs_status,
 * changedSince runs_updated, and newest first is the rowid read backwards, so `LIMIT n`
 * reads n rows, not the table.
 */
export function runListSql(shape: RunListShape): { where: string; params: unknown[]; order: string; limit: string } {
  const terms = shape.conditions.map(term);
  const params = terms.filter((t) => 'param' in t).map((t) => t.param);
  // With changedSince, "+id" keeps the planner on runs_updated (a few changed rows, sorted)
  // rather than reading every run backwards to save the sort.
  const order = shape.conditions.some((c) => c.kind === 'changedSince') ? ' ORDER BY +id DESC' : ' ORDER BY id DESC';
  return {
    where: terms.length ? ` WHERE ${terms.map((t) => t.sql).join(' AND ')}` : '',
    params,
    order,
    limit: shape.limit === null ? '' : ` LIMIT ${shape.limit}`,
  };
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
