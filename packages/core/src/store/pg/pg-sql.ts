import type { RunCondition, RunListShape } from '../run-list.js';

/**
 * The SQL the PostgreSQL reads share, written for PostgreSQL (the same results as SQLite's).
 * Parameters are numbered ($1 …); a query that names the store's clock takes it as a parameter
 * too, so a claim is judged by the same time everywhere in one read.
 */
export const OPEN = `status IN ('running','waiting','waiting_human')`;

/**
 * The claim on a waiting call's current ask, joined in only while it lasts (expires_at after
 * `now`) and the ask is open: an answer closes it, even before the driver takes the answer in.
 */
export const claimJoin = (
  now: string,
) => `LEFT JOIN claims c ON c.run_id = e.run_id AND c.call_key = e.call_key AND c.ask = e.ask
  AND e.status = 'waiting_human' AND c.expires_at > ${now}
  AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.run_id = c.run_id AND a.call_key = c.call_key AND a.ask = c.ask)`;
export const CLAIM_COLUMNS =
  'c."by" AS claim_by, c.channel AS claim_channel, c.claimed_at AS claim_since, c.expires_at AS claim_until';

/** SQLite's ROUND(TOTAL(x), 6): a sum that is 0 over no rows, to the micro-dollar. */
export const totalCost = (col = 'cost_usd') => `ROUND(COALESCE(SUM(${col}), 0)::numeric, 6)`;

/** A few runs' ids as one parameter (an array), as SQLite's `json_each(?)` takes them. */
const ofRuns = 'run_id = ANY($1::bigint[])';

/** What listRuns reads besides the runs, for the runs it picked only (RUN_EXTRAS of SQLite). */
export const PG_RUN_EXTRAS = {
  // Oldest ask first: the first row of a run is the call it waits on.
  waiting: `SELECT * FROM executions WHERE status IN ('waiting','waiting_human') AND ${ofRuns} ORDER BY updated_at, run_id, seq`,
  // Ordered so the newest running call of a run comes last (it wins in a map); seq settles ties as SQLite's stable scan does.
  running: `SELECT * FROM executions WHERE status = 'running' AND kind IN ('run','sh') AND ${ofRuns}
    ORDER BY run_id, COALESCE(activity_at, attempt_at, started_at), seq`,
  costs: `SELECT run_id, ${totalCost()} AS cost FROM executions WHERE ${ofRuns} GROUP BY run_id`,
} as const;

/**
 * The SQL of listRuns and countRuns for a shape, each condition's parameter numbered in turn:
 * the status filters use runs_status, changedSince runs_updated, newest first the primary key.
 * A time is a whole number here (PostgreSQL refuses a fraction for a BIGINT; `x > t` holds
 * exactly when `x > floor(t)` for whole-number columns).
 */
export function pgRunListSql(shape: RunListShape): { where: string; params: unknown[]; order: string; limit: string } {
  const params: unknown[] = [];
  const param = (v: unknown) => `$${params.push(v)}`;
  const term = (c: RunCondition): string => {
    switch (c.kind) {
      case 'status':
        return `status = ${param(c.status)}`;
      case 'active':
        return `status IN ('queued','running','waiting','waiting_human')`;
      case 'held':
        return 'held IS NOT NULL';
      case 'changedSince':
        return `updated_at > ${param(Math.floor(c.after))}`;
    }
  };
  const terms = shape.conditions.map(term);
  return {
    where: terms.length ? ` WHERE ${terms.join(' AND ')}` : '',
    params,
    order: ' ORDER BY id DESC',
    limit: shape.limit === null ? '' : ` LIMIT ${shape.limit}`,
  };
}
