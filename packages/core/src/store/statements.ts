import type Database from 'better-sqlite3';

/** Every statement the SQLite store runs, by name. */
const SQL = {
  insertRun: `INSERT INTO runs (spec, workflow_path, prompt, status, workspace, branch, seed, owner_pid, lease_until, created_at, updated_at)
    VALUES (@spec, @workflowPath, @prompt, 'running', @workspace, @branch, @seed, @ownerPid, @leaseUntil, @t, @t)`,
  getRun: 'SELECT * FROM runs WHERE id = ?',
  setWorkspace: 'UPDATE runs SET workspace = ?, branch = ?, updated_at = ? WHERE id = ?',
  listRuns: 'SELECT * FROM runs ORDER BY id DESC',
  waitingExecutions: `SELECT * FROM executions WHERE status = 'waiting_human' ORDER BY updated_at, run_id, seq`,
  costs: 'SELECT run_id, SUM(cost_usd) AS cost FROM executions GROUP BY run_id',
  executions: 'SELECT * FROM executions WHERE run_id = ? ORDER BY seq',
  replayLog: 'SELECT call_key, fingerprint, status, result FROM executions WHERE run_id = ? ORDER BY seq',
  getExecution: 'SELECT * FROM executions WHERE run_id = ? AND call_key = ?',
  events: 'SELECT * FROM events WHERE run_id = ? ORDER BY id',
  countEvents: 'SELECT COUNT(*) AS n FROM events WHERE run_id = ? AND type = ?',
  setLease: 'UPDATE runs SET owner_pid = ?, lease_until = ?, updated_at = ? WHERE id = ?',
  renewLease: 'UPDATE runs SET lease_until = ? WHERE id = ? AND owner_pid = ?',
  releaseLease: 'UPDATE runs SET owner_pid = NULL, lease_until = NULL WHERE id = ? AND owner_pid = ?',
  nextSeq: 'SELECT COALESCE(MAX(seq), 0) + 1 AS seq FROM executions WHERE run_id = ?',
  insertExecution: `INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, session_id, cwd, prompt, request, signal_path, started_at, updated_at)
    VALUES (@runId, @key, @seq, @kind, @agent, @fingerprint, 'running', @sessionId, @cwd, @prompt, @request, @signalPath, @t, @t)`,
  restartExecution: `UPDATE executions SET status = 'running', attempts = attempts + 1, error = NULL, updated_at = ?, finished_at = NULL WHERE run_id = ? AND call_key = ?`,
  setPid: 'UPDATE executions SET pid = ?, updated_at = ? WHERE run_id = ? AND call_key = ?',
  completeExecution: `UPDATE executions SET status = 'completed', result = @result, pid = NULL,
    cost_usd = COALESCE(@cost, cost_usd), num_turns = COALESCE(@turns, num_turns), duration_ms = COALESCE(@duration, duration_ms),
    waiting_for = NULL, updated_at = @t, finished_at = @t WHERE run_id = @runId AND call_key = @key`,
  failExecution: `UPDATE executions SET status = 'failed', error = @error, pid = NULL,
    cost_usd = COALESCE(@cost, cost_usd), num_turns = COALESCE(@turns, num_turns), duration_ms = COALESCE(@duration, duration_ms),
    updated_at = @t, finished_at = @t WHERE run_id = @runId AND call_key = @key`,
  markWaiting: `UPDATE executions SET status = 'waiting_human', ask = ask + 1, waiting_for = @waitingFor, awaiting = @awaiting, pid = NULL,
    cost_usd = COALESCE(@cost, cost_usd), num_turns = COALESCE(@turns, num_turns), duration_ms = COALESCE(@duration, duration_ms),
    updated_at = @t WHERE run_id = @runId AND call_key = @key`,
  // Also revives a failed run (retry): its old failure reason and end time no longer hold.
  setRunStatus: `UPDATE runs SET status = ?, reason = NULL, ended_at = NULL, updated_at = ? WHERE id = ? AND status NOT IN ('completed','stuck')`,
  endRun: `UPDATE runs SET status = @status, reason = @reason, result = @result, ended_at = @t, updated_at = @t
    WHERE id = @runId AND status NOT IN ('completed','stuck','failed')`,
  getAnswer: 'SELECT * FROM answers WHERE run_id = ? AND call_key = ? AND ask = ?',
  listAnswers: 'SELECT * FROM answers WHERE run_id = ? ORDER BY answered_at, rowid',
  insertAnswer: `INSERT INTO answers (run_id, call_key, ask, verdict, status, message, decisions, responder, channel, answered_at)
    VALUES (@runId, @key, @ask, @verdict, @status, @message, @decisions, @responder, @channel, @t)`,
  insertEvent: 'INSERT INTO events (run_id, call_key, type, actor, channel, data, at) VALUES (?, ?, ?, ?, ?, ?, ?)',
} as const;

export type Statements = Record<keyof typeof SQL, Database.Statement>;

/** Prepares every statement once per connection. */
export function prepare(db: Database.Database): Statements {
  return Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
}
