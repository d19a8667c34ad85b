import type Database from 'better-sqlite3';

const OPEN = `status IN ('running','waiting','waiting_human')`;
const HOLD_COLUMNS = ['hold_kind', 'hold_token', 'hold_by', 'hold_host', 'hold_pid', 'hold_pid_start', 'hold_since'];
/** No hold: every column of it cleared, so a finished call's row carries none of it. */
const NO_HOLD = HOLD_COLUMNS.map((c) => `${c} = NULL`).join(', ');
/** An agent's hold ends with its attempt; a person's (shop continue) only when that process lets go. */
const END_AGENT_HOLD = HOLD_COLUMNS.map((c) => `${c} = CASE WHEN hold_kind = 'agent' THEN NULL ELSE ${c} END`).join(
  ', ',
);
/**
 * The claim on a waiting call's current ask, joined in only while it lasts (expires_at after
 * @now) and the ask is open: an answer closes it, even before the driver takes the answer in.
 */
const CLAIM_JOIN = `LEFT JOIN claims c ON c.run_id = e.run_id AND c.call_key = e.call_key AND c.ask = e.ask
  AND e.status = 'waiting_human' AND c.expires_at > @now
  AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.run_id = c.run_id AND a.call_key = c.call_key AND a.ask = c.ask)`;
const CLAIM_COLUMNS =
  'c.by AS claim_by, c.channel AS claim_channel, c.claimed_at AS claim_since, c.expires_at AS claim_until';
/** An invocation's cost and tokens add to the call's (a step that asked and resumed spent on both); absent adds nothing. */
const add = (col: string, param: string) =>
  `${col} = CASE WHEN ${param} IS NULL THEN ${col} ELSE COALESCE(${col}, 0) + ${param} END`;
const SUMMED = [
  `cost_usd = CASE WHEN @cost IS NULL THEN cost_usd ELSE ROUND(COALESCE(cost_usd, 0) + @cost, 6) END`,
  add('input_tokens', '@input'),
  add('output_tokens', '@output'),
  add('cache_read_tokens', '@cacheRead'),
  add('cache_write_tokens', '@cacheWrite'),
].join(', ');
/**
 * What an invocation's end writes. Turns and duration are the latest known (setActivity writes
 * the running count while the agent works); cost and tokens, only known at the end, are summed.
 */
const METRICS = `${SUMMED}, num_turns = COALESCE(@turns, num_turns), duration_ms = COALESCE(@duration, duration_ms)`;
/** What a running invocation writes: its progress only, never its (not yet final) spend. */
const PROGRESS = `num_turns = COALESCE(@turns, num_turns), duration_ms = COALESCE(@duration, duration_ms)`;

/** Every statement the SQLite store runs, by name. */
const SQL = {
  insertRun: `INSERT INTO runs (spec, workflow_path, workflow_hash, prompt, status, workspace, branch, seed,
      owner_token, owner_host, owner_pid, owner_pid_start, lease_until, rules, parent_id, parent_key, trigger_json, created_at, updated_at)
    VALUES (@spec, @workflowPath, @workflowHash, @prompt, 'running', @workspace, @branch, @seed,
      @token, @host, @pid, @pidStart, @leaseUntil, @rules, @parentId, @parentKey, @trigger, @t, @t)`,
  setRules: 'UPDATE runs SET rules = ?, updated_at = ? WHERE id = ?',
  clearHeld: 'UPDATE runs SET held = NULL, updated_at = ? WHERE id = ?',
  // Only an open run is held: its end follows in the same transaction.
  setHeld: `UPDATE runs SET held = ? WHERE id = ? AND status IN ('running','waiting','waiting_human')`,
  getRun: 'SELECT * FROM runs WHERE id = ?',
  // The fence's read: the owner, and what a driver's write needs of the run (its status; host and pid for the trail).
  ownerToken: 'SELECT owner_token, status, owner_host, owner_pid FROM runs WHERE id = ?',
  setWorkspace: 'UPDATE runs SET workspace = ?, branch = ?, updated_at = ? WHERE id = ?',
  openRuns: `SELECT * FROM runs WHERE status IN ('running','waiting','waiting_human') ORDER BY id`,
  awakeRuns: `SELECT * FROM runs WHERE status IN ('running','waiting_human') ORDER BY id`,
  // "status IN (…) AND status = …": SQLite uses a partial index only when the query repeats its condition.
  // Only runs not ended: an ended run's answer is taken in by a resume, not by a worker's pass.
  answeredRuns: `SELECT DISTINCT e.run_id FROM executions e JOIN answers a ON a.run_id = e.run_id AND a.call_key = e.call_key AND a.ask = e.ask
    JOIN runs r ON r.id = e.run_id WHERE e.${OPEN} AND e.status = 'waiting_human' AND r.${OPEN}`,
  // A call waiting on a run that has ended (failed too: its parent hears of it): the child's end wakes the parent.
  childEndedRuns: `SELECT DISTINCT e.run_id FROM executions e INDEXED BY executions_wait_run JOIN runs c ON c.id = e.wait_run JOIN runs r ON r.id = e.run_id
    WHERE e.wait_run IS NOT NULL AND e.status = 'waiting' AND c.status IN ('completed','stuck','failed') AND r.${OPEN}`,
  children: 'SELECT * FROM runs WHERE parent_id = ? ORDER BY id',
  // An ask already answered is not open to anyone, even while its driver has yet to take the answer in.
  waitingExecutions: `SELECT e.*, ${CLAIM_COLUMNS} FROM executions e ${CLAIM_JOIN} WHERE e.${OPEN} AND e.status = 'waiting_human'
    AND NOT EXISTS (SELECT 1 FROM answers a WHERE a.run_id = e.run_id AND a.call_key = e.call_key AND a.ask = e.ask)
    ORDER BY e.updated_at, e.run_id, e.seq`,
  executions: 'SELECT * FROM executions WHERE run_id = ? ORDER BY seq',
  lastExecutions: 'SELECT * FROM (SELECT * FROM executions WHERE run_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq',
  // The partial index finds a run's few open calls among its finished ones (the planner would scan the run).
  openExecutions: `SELECT e.*, ${CLAIM_COLUMNS} FROM executions e INDEXED BY executions_open ${CLAIM_JOIN}
    WHERE e.${OPEN} AND e.run_id = @runId ORDER BY e.seq`,
  executionTotals: `SELECT COUNT(*) AS calls, ROUND(TOTAL(cost_usd), 6) AS cost,
    (SELECT agent FROM executions WHERE run_id = @runId AND agent IS NOT NULL ORDER BY seq DESC LIMIT 1) AS agent
    FROM executions WHERE run_id = @runId`,
  replayLog:
    'SELECT call_key, kind, fingerprint, status, result, delivered FROM executions WHERE run_id = ? ORDER BY seq',
  getExecution: 'SELECT * FROM executions WHERE run_id = ? AND call_key = ?',
  // What the refusals (call-rules.ts) read of a call: not its whole row.
  callState: 'SELECT status, delivered FROM executions WHERE run_id = ? AND call_key = ?',
  // The same for readers outside the store: with the claim on its open ask, if one lasts.
  getExecutionClaimed: `SELECT e.*, ${CLAIM_COLUMNS} FROM executions e ${CLAIM_JOIN} WHERE e.run_id = @runId AND e.call_key = @key`,
  events: 'SELECT * FROM events WHERE run_id = ? AND id > ? ORDER BY id',
  lastEvents: 'SELECT * FROM (SELECT * FROM events WHERE run_id = ? ORDER BY id DESC LIMIT ?) ORDER BY id',
  logEvents: `SELECT data FROM events WHERE run_id = ? AND type = 'log'`,
  claimRun: `UPDATE runs SET owner_token = @token, owner_host = @host, owner_pid = @pid, owner_pid_start = @pidStart,
      lease_until = @leaseUntil, updated_at = @t
    WHERE id = @runId AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= @t OR owner_token IS @expected)`,
  renewLease: 'UPDATE runs SET lease_until = @leaseUntil WHERE id = @runId AND owner_token = @token',
  // updated_at: a driver gone is a change readers see ("driver gone since" is read from it).
  releaseRun: `UPDATE runs SET owner_token = NULL, owner_host = NULL, owner_pid = NULL, owner_pid_start = NULL, lease_until = NULL, updated_at = ?
    WHERE id = ? AND owner_token = ?`,
  pendingAnswer: `SELECT 1 FROM answers a JOIN executions e ON e.run_id = a.run_id AND e.call_key = a.call_key AND e.ask = a.ask
    WHERE a.run_id = ? AND e.status = 'waiting_human' LIMIT 1`,
  requestStop: `UPDATE runs SET stop_reason = ?, stop_by = ?, stop_at = ?, updated_at = ? WHERE id = ? AND status NOT IN ('completed','stuck','failed')`,
  // A result handed over: the next number in the run's delivery order, and the run goes on
  // (status only changes when it was waiting), in the one write to its row.
  nextDelivery: `UPDATE runs SET delivered = delivered + 1, status = CASE WHEN status IN ('waiting','waiting_human') THEN 'running' ELSE status END, updated_at = ?
    WHERE id = ? RETURNING delivered AS n`,
  nextEvent: 'UPDATE runs SET events = events + 1, updated_at = ? WHERE id = ? RETURNING events AS n',
  // A step's two writes each take a number in the run's order and its trail's next event id in
  // the one write to the run's row (a second would rewrite the row and its updated_at index
  // again). The run goes on: its status is written only when it was waiting — a column set is
  // a column whose indexes (runs_status, runs_concurrency) SQLite rewrites, changed or not.
  nextCallAndEvent: `UPDATE runs SET calls = calls + 1, events = events + 1, updated_at = ?
    WHERE id = ? RETURNING calls AS n, events AS event`,
  nextCallAndEventRunning: `UPDATE runs SET calls = calls + 1, events = events + 1, status = 'running', updated_at = ?
    WHERE id = ? RETURNING calls AS n, events AS event`,
  nextDeliveryAndEvent: `UPDATE runs SET delivered = delivered + 1, events = events + 1, updated_at = ?
    WHERE id = ? RETURNING delivered AS n, events AS event`,
  nextDeliveryAndEventRunning: `UPDATE runs SET delivered = delivered + 1, events = events + 1, status = 'running', updated_at = ?
    WHERE id = ? RETURNING delivered AS n, events AS event`,
  // An agent's call is recorded held by its driver's step (the hold columns as takeAgentHold sets them);
  // the new row comes back, not read again.
  insertExecution: `INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, session_id, cwd, prompt, request, signal_path, started_at, updated_at, attempt_at,
      hold_kind, hold_token, hold_by, hold_host, hold_since)
    VALUES (@runId, @key, @seq, @kind, @agent, @fingerprint, 'running', @sessionId, @cwd, @prompt, @request, @signalPath, @t, @t, @t,
      @holdKind, @holdToken, @holdBy, @holdHost, @holdSince) RETURNING *`,
  restartExecution: `UPDATE executions SET status = 'running', attempts = attempts + 1, error = NULL, activity = NULL, activity_at = NULL,
    signal_path = COALESCE(@signalPath, signal_path), attempt_at = @t, updated_at = @t, finished_at = NULL WHERE run_id = @runId AND call_key = @key`,
  setActivity: `UPDATE executions SET activity = @activity, activity_at = @t, ${PROGRESS}, updated_at = @t
    WHERE run_id = @runId AND call_key = @key AND status = 'running'`,
  touchRun: 'UPDATE runs SET updated_at = ? WHERE id = ?',
  // A pid recorded is an agent process started on the session: from then on it is resumed, never started anew.
  setPid: `UPDATE executions SET pid = @pid, pid_start = @pidStart, spawned = spawned + (@pid IS NOT NULL),
      hold_pid = CASE WHEN hold_kind = 'agent' THEN @pid ELSE hold_pid END, hold_pid_start = CASE WHEN hold_kind = 'agent' THEN @pidStart ELSE hold_pid_start END,
      updated_at = @t WHERE run_id = @runId AND call_key = @key`,
  setSessionId:
    'UPDATE executions SET session_id = @sessionId, updated_at = @t WHERE run_id = @runId AND call_key = @key',
  // The driver's agent step holds the session (its owner token; the agent's pid once spawned).
  takeAgentHold: `UPDATE executions SET hold_kind = 'agent', hold_token = @token, hold_by = agent,
      hold_host = (SELECT owner_host FROM runs WHERE id = @runId), hold_pid = NULL, hold_pid_start = NULL, hold_since = @t
    WHERE run_id = @runId AND call_key = @key`,
  takeContinueHold: `UPDATE executions SET hold_kind = 'continue', hold_token = @token, hold_by = @by, hold_host = @host,
      hold_pid = @pid, hold_pid_start = @pidStart, hold_since = @t, updated_at = @t WHERE run_id = @runId AND call_key = @key`,
  releaseHold: `UPDATE executions SET ${NO_HOLD}, updated_at = @t WHERE run_id = @runId AND call_key = @key AND hold_token = @token`,
  clearHold: `UPDATE executions SET ${NO_HOLD} WHERE run_id = ? AND call_key = ?`,
  completeExecution: `UPDATE executions SET status = 'completed', result = @result, delivered = @delivered, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD}, ${METRICS},
    waiting_for = NULL, updated_at = @t, finished_at = @t WHERE run_id = @runId AND call_key = @key`,
  failExecution: `UPDATE executions SET status = 'failed', error = @error, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD}, ${METRICS},
    updated_at = @t, finished_at = @t WHERE run_id = @runId AND call_key = @key AND ${OPEN}`,
  closeExecution: `UPDATE executions SET status = 'completed', updated_at = ?, finished_at = ? WHERE run_id = ? AND call_key = ? AND status = 'running'`,
  // The run's open calls end with it: running ones (their processes were killed first) and waiting ones.
  // A held run's step (`keep`) stays running, its report on disk, as after a crash: a resume completes it from there.
  failOpen: `UPDATE executions SET status = 'failed', error = ?, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD}, updated_at = ?, finished_at = ?
    WHERE run_id = ? AND ${OPEN} AND call_key IS NOT ?`,
  markWaiting: `UPDATE executions SET status = 'waiting_human', ask = ask + 1, waiting_for = @waitingFor, awaiting = @awaiting, claim_timeout = @claimTimeout, ask_decisions = @askDecisions, pid = NULL, pid_start = NULL,
    ${END_AGENT_HOLD}, activity = NULL, ${METRICS}, updated_at = @t WHERE run_id = @runId AND call_key = @key`,
  markWaitingOn: `UPDATE executions SET status = 'waiting', wait_kind = @kind, wait_until = @until, wait_run = @waitRun, pid = NULL, pid_start = NULL,
    ${END_AGENT_HOLD}, activity = NULL, updated_at = @t WHERE run_id = @runId AND call_key = @key`,
  wakeFired: `UPDATE timers SET fired_at = ? WHERE run_id = ? AND call_key = ? AND kind = 'wake' AND fired_at IS NULL`,
  // A call starting or completing: the run goes on (only a write when it was waiting).
  markRunning: `UPDATE runs SET status = CASE WHEN status IN ('waiting','waiting_human') THEN 'running' ELSE status END, updated_at = ? WHERE id = ?`,
  // Also revives a failed run (retry): its old failure reason and end time no longer hold.
  setRunStatus: `UPDATE runs SET status = ?, reason = NULL, ended_at = NULL, updated_at = ? WHERE id = ? AND status NOT IN ('completed','stuck')`,
  endRun: `UPDATE runs SET status = @status, reason = @reason, result = @result, ended_at = @t, updated_at = @t
    WHERE id = @runId AND status NOT IN ('completed','stuck','failed')`,
  getAnswer: 'SELECT * FROM answers WHERE run_id = ? AND call_key = ? AND ask = ?',
  listAnswers: 'SELECT * FROM answers WHERE run_id = ? ORDER BY answered_at, rowid',
  insertAnswer: `INSERT INTO answers (run_id, call_key, ask, verdict, status, message, decisions, responder, channel, answered_at)
    VALUES (@runId, @key, @ask, @verdict, @status, @message, @decisions, @responder, @channel, @t)`,
  insertTimer: 'INSERT INTO timers (run_id, call_key, ask, kind, due_at, data) VALUES (?, ?, ?, ?, ?, ?)',
  dueTimers: 'SELECT * FROM timers WHERE fired_at IS NULL AND due_at <= ? ORDER BY due_at, id',
  nextTimer: 'SELECT run_id, MIN(due_at) AS due FROM timers WHERE fired_at IS NULL GROUP BY run_id',
  // An ended run's timers are void: the earliest of the others (timers_due in order, each run looked up by its key).
  nextOpenTimer: `SELECT MIN(t.due_at) AS due FROM timers t JOIN runs r ON r.id = t.run_id
    WHERE t.fired_at IS NULL AND r.status IN ('running','waiting','waiting_human')`,
  timerFired: 'UPDATE timers SET fired_at = ? WHERE id = ? AND fired_at IS NULL',
  runCost: 'SELECT ROUND(TOTAL(cost_usd), 6) AS cost FROM executions WHERE run_id = ?',
  insertEvent:
    'INSERT INTO events (run_id, id, call_key, type, actor, channel, data, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
} as const;

export type Statements = Record<keyof typeof SQL, Database.Statement>;

/**
 * The connection's statements, each prepared on its first use and kept (a plain property from
 * then on): a command that reads a few (shop list) does not prepare the rest at start-up.
 */
export function prepare(db: Database.Database): Statements {
  const statements = {} as Statements;
  for (const [name, sql] of Object.entries(SQL))
    Object.defineProperty(statements, name, {
      configurable: true,
      enumerable: true,
      get() {
        const statement = db.prepare(sql);
        Object.defineProperty(statements, name, { value: statement, enumerable: true });
        return statement;
      },
    });
  return statements;
}
