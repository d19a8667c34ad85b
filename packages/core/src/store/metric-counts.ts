/**
 * What a metrics scrape reads of the store, in one look: counts grouped by labels whose values
 * are bounded (statuses, the project's workflows, its agents) — never a run id.
 */
export interface MetricCounts {
  /** Runs by status as shown (a running run whose lease ran out by the store's clock is `interrupted`) and workflow. */
  runs: { status: string; workflow: string; count: number }[];
  /** Asks open now (calls waiting for a person), and since when the oldest has waited (the store's clock), or null. */
  asksWaiting: number;
  oldestAskSince: number | null;
  /** Agent steps recorded by agent and outcome (completed, failed, running, waiting…), their attempts, cost and tokens. */
  steps: {
    agent: string;
    status: string;
    count: number;
    attempts: number;
    costUsd: number;
    tokens: Record<TokenKind, number>;
  }[];
  /** Agent steps' durations as the CLI reported them, by agent: how many took at most each of STEP_SECONDS (cumulative), all of them, their sum. */
  durations: { agent: string; atMost: number[]; count: number; sumMs: number }[];
  /** Timers due now and not fired (a worker's lag shows here). */
  timersDue: number;
  /** The store's clock when counted. */
  at: number;
}

/** The kinds of tokens a CLI reports (a call's columns: input_tokens, output_tokens, cache_read_tokens, cache_write_tokens). */
export const TOKEN_KINDS = ['input', 'output', 'cache_read', 'cache_write'] as const;
export type TokenKind = (typeof TOKEN_KINDS)[number];

/** The step-duration histogram's upper bounds, in seconds (an agent's step takes seconds to an hour). */
export const STEP_SECONDS = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600] as const;

/** The SQL both adapters share: plain GROUP BYs on indexed columns (`?` the store's now, twice). */
export const METRIC_SQL = {
  runs: `SELECT CASE WHEN status = 'running' AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= ?)
      THEN 'interrupted' ELSE status END AS status, spec AS workflow, COUNT(*) AS count FROM runs GROUP BY 1, 2`,
  asks: `SELECT COUNT(*) AS count, MIN(updated_at) AS oldest FROM executions WHERE status = 'waiting_human'`,
  steps: `SELECT COALESCE(agent, '') AS agent, status, COUNT(*) AS count, SUM(attempts) AS attempts,
      SUM(COALESCE(cost_usd, 0)) AS cost, ${TOKEN_KINDS.map((k) => `SUM(COALESCE(${k}_tokens, 0)) AS ${k}_tokens`).join(', ')}
      FROM executions WHERE kind = 'run' GROUP BY 1, 2`,
  timersDue: `SELECT COUNT(*) AS count FROM timers WHERE fired_at IS NULL AND due_at <= ?`,
  durations: `SELECT COALESCE(agent, '') AS agent, ${STEP_SECONDS.map((s, i) => `SUM(CASE WHEN duration_ms <= ${s * 1000} THEN 1 ELSE 0 END) AS b${i}`).join(', ')},
      COUNT(*) AS count, SUM(duration_ms) AS sum_ms FROM executions WHERE kind = 'run' AND duration_ms IS NOT NULL GROUP BY 1`,
} as const;

type Row = Record<string, unknown>;

/** The four reads' rows as counts. */
export function metricCountsOf(
  at: number,
  r: { runs: Row[]; asks: Row | undefined; steps: Row[]; timersDue: Row | undefined; durations: Row[] },
): MetricCounts {
  return {
    runs: r.runs.map((x) => ({ status: String(x.status), workflow: String(x.workflow), count: Number(x.count) })),
    asksWaiting: Number(r.asks?.count ?? 0),
    oldestAskSince: r.asks?.oldest == null ? null : Number(r.asks.oldest),
    steps: r.steps.map((x) => ({
      agent: String(x.agent),
      status: String(x.status),
      count: Number(x.count),
      attempts: Number(x.attempts ?? 0),
      costUsd: Math.round(Number(x.cost ?? 0) * 1e6) / 1e6,
      tokens: Object.fromEntries(TOKEN_KINDS.map((k) => [k, Number(x[`${k}_tokens`] ?? 0)])) as Record<
        TokenKind,
        number
      >,
    })),
    durations: r.durations.map((x) => ({
      agent: String(x.agent),
      atMost: STEP_SECONDS.map((_, i) => Number(x[`b${i}`] ?? 0)),
      count: Number(x.count),
      sumMs: Number(x.sum_ms ?? 0),
    })),
    timersDue: Number(r.timersDue?.count ?? 0),
    at,
  };
}
