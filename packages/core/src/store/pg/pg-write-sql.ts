/**
 * The SQL of the PostgreSQL store's writes, written for it (the same effects as SQLite's
 * sqlite/statements.ts): numbered parameters, the store's clock always a parameter. A write
 * that is often on a step's path is one statement (its fence, its counters on the run row
 * and its audit event together, so one round trip and its own transaction); the rest run
 * inside PgDb.tx under the run row's lock.
 */
const OPEN = `status IN ('running','waiting','waiting_human')`;
const HOLD_COLUMNS = ['hold_kind', 'hold_token', 'hold_by', 'hold_host', 'hold_pid', 'hold_pid_start', 'hold_since'];
const NO_HOLD = HOLD_COLUMNS.map((c) => `${c} = NULL`).join(', ');
/** An agent's hold ends with its attempt; a person's (shop continue) only when that process lets go. */
const END_AGENT_HOLD = HOLD_COLUMNS.map((c) => `${c} = CASE WHEN hold_kind = 'agent' THEN NULL ELSE ${c} END`).join(
  ', ',
);
/** What a running invocation writes: its progress ($n turns, $n+1 duration), never its (not yet final) spend. */
const progress = (n: number) =>
  `num_turns = COALESCE($${n}::int, num_turns), duration_ms = COALESCE($${n + 1}::bigint, duration_ms)`;
/** An invocation's cost or tokens ($n) add to the call's: a step that asked and resumed spent on both. */
const add = (col: string, n: number, type: string) =>
  `${col} = CASE WHEN $${n}::${type} IS NULL THEN ${col} ELSE COALESCE(${col}, 0) + $${n}::${type} END`;
/**
 * What an invocation's end writes ($n cost, $n+1 turns, $n+2 duration, $n+3…$n+6 tokens: input,
 * output, cache read, cache write; pg-steps.ts metricParams): turns and duration are the latest
 * known, cost and tokens are summed over the call's invocations (absent adds nothing).
 */
const metrics = (n: number) =>
  [
    `cost_usd = CASE WHEN $${n}::float8 IS NULL THEN cost_usd ELSE ROUND((COALESCE(cost_usd, 0) + $${n}::float8)::numeric, 6)::float8 END`,
    progress(n + 1),
    add('input_tokens', n + 3, 'bigint'),
    add('output_tokens', n + 4, 'bigint'),
    add('cache_read_tokens', n + 5, 'bigint'),
    add('cache_write_tokens', n + 6, 'bigint'),
  ].join(', ');
/** A waiting run goes on when a call starts or a result is handed over. */
const GOES_ON = `status = CASE WHEN status IN ('waiting','waiting_human') THEN 'running' ELSE status END`;
const EVENT_COLUMNS = 'run_id, id, call_key, type, actor, channel, data, at';

export const W = {
  /** The run's row, locked for this transaction: fencing, and the order every write takes. */
  lockRun: 'SELECT * FROM runs WHERE id = $1 FOR UPDATE',
  runFence: 'SELECT owner_token, status, reason FROM runs WHERE id = $1',

  // $1 spec … $7 seed, $8 token, $9 host, $10 pid, $11 pidStart, $12 lease until, $13 t, $14 actor, $15 data, $16 channel, $17 rules
  // $18 parent run, $19 its call's key (a child run; null for a person's), $20 the first event's channel.
  createRun: `WITH r AS (
      INSERT INTO runs (spec, workflow_path, workflow_hash, prompt, status, workspace, branch, seed,
        owner_token, owner_host, owner_pid, owner_pid_start, lease_until, events, rules, parent_id, parent_key, trigger_json, created_at, updated_at)
      VALUES ($1, $2, $3, $4, 'running', $5, $6, $7, $8, $9, $10, $11, $12, 1, $17::text, $18::bigint, $19::text, $21::text, $13, $13) RETURNING *),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT r.id, 1, NULL, 'run_started', $14::text, $20::text, $15::text, $13 FROM r)
    SELECT r.*, pg_notify($16, 'run:' || r.id) AS woke FROM r`,
  // $1 run, $2 token, $3 host, $4 pid, $5 pidStart, $6 t, $7 leaseMs, $8 expected token
  claimRun: `UPDATE runs SET owner_token = $2, owner_host = $3, owner_pid = $4, owner_pid_start = $5, lease_until = $6::bigint + $7::bigint, updated_at = $6
    WHERE id = $1 AND (owner_token IS NULL OR lease_until IS NULL OR lease_until <= $6 OR owner_token = $8) RETURNING *`,
  runExists: 'SELECT 1 FROM runs WHERE id = $1',
  renewLease: 'UPDATE runs SET lease_until = $3::bigint + $4::bigint WHERE id = $1 AND owner_token = $2 RETURNING id',
  pendingAnswer: `SELECT 1 FROM answers a JOIN executions e ON e.run_id = a.run_id AND e.call_key = a.call_key AND e.ask = a.ask
    WHERE a.run_id = $1 AND e.status = 'waiting_human' LIMIT 1`,
  /** Gives the run up and wakes LISTENers ($3 channel, $4 payload): a worker may take it now. */
  releaseRun: `UPDATE runs SET owner_token = NULL, owner_host = NULL, owner_pid = NULL, owner_pid_start = NULL, lease_until = NULL, updated_at = $2
    WHERE id = $1 RETURNING pg_notify($3, $4) AS woke`,
  requestStop: `UPDATE runs SET stop_reason = $2, stop_by = $3, stop_at = $4, updated_at = $4 WHERE id = $1 RETURNING *`,
  setWorkspace:
    'UPDATE runs SET workspace = $3, branch = $4, updated_at = $5 WHERE id = $1 AND owner_token = $2 RETURNING id',

  // $1 run, $2 token, $3 t, $4 key, $5 kind, $6 agent, $7 fingerprint, $8 session, $9 cwd, $10 prompt, $11 request, $12 signal path, $13 hold agent's step
  startExecution: `WITH r AS (
      UPDATE runs SET calls = calls + 1, events = events + 1, ${GOES_ON}, updated_at = $3
      WHERE id = $1 AND owner_token = $2 AND ${OPEN} RETURNING calls, events, owner_host, owner_pid),
    x AS (INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, session_id, cwd, prompt, request, signal_path,
        started_at, updated_at, attempt_at, hold_kind, hold_token, hold_by, hold_host, hold_since)
      SELECT $1, $4::text, r.calls, $5::text, $6::text, $7::text, 'running', $8::text, $9::text, $10::text, $11::text, $12::text, $3, $3, $3,
        CASE WHEN $13::bool THEN 'agent' END, CASE WHEN $13::bool THEN $2 END, CASE WHEN $13::bool THEN $6::text END,
        CASE WHEN $13::bool THEN r.owner_host END, CASE WHEN $13::bool THEN $3 END
      FROM r RETURNING *),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $4::text, 'execution_started', 'shop', 'engine',
      json_build_object('host', r.owner_host, 'pid', r.owner_pid)::text, $3 FROM r)
    SELECT * FROM x`,
  // $1 run, $2 token, $3 t, $4 key, $5 result, $6-$12 metrics, $13 event data. A call completes while open, or once when an
  // old version completed it without handing it over (call-rules.ts). The run row is locked first (l), then the
  // call's (c): FOR UPDATE reads the call's latest version, so a call failed by a write that committed while this one
  // waited for the run row (a run finished on a parallel branch) is not completed after all — nothing is written then.
  completeExecution: `WITH l AS (SELECT id FROM runs WHERE id = $1 AND owner_token = $2 FOR UPDATE),
    c AS (SELECT seq FROM executions WHERE run_id = (SELECT id FROM l) AND call_key = $4
      AND (${OPEN} OR (status = 'completed' AND delivered IS NULL)) FOR UPDATE),
    r AS (UPDATE runs SET delivered = delivered + 1, events = events + 1, ${GOES_ON}, updated_at = $3
      WHERE id = $1 AND EXISTS (SELECT 1 FROM c) RETURNING delivered, events),
    x AS (UPDATE executions SET status = 'completed', result = $5, delivered = r.delivered, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD},
        ${metrics(6)}, waiting_for = NULL, updated_at = $3, finished_at = $3
      FROM r WHERE run_id = $1 AND call_key = $4 RETURNING r.delivered AS n),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $4, 'execution_finished', 'shop', 'engine', $13::text, $3 FROM r)
    SELECT n FROM x`,
  // $1 run, $2 token, $3 t, $4 key, $5 activity, $6 turns, $7 duration
  setActivity: `WITH r AS (UPDATE runs SET updated_at = $3 WHERE id = $1 AND owner_token = $2 RETURNING id),
    x AS (UPDATE executions SET activity = $5, activity_at = $3, ${progress(6)}, updated_at = $3
      WHERE run_id = $1 AND call_key = $4 AND status = 'running' AND EXISTS (SELECT 1 FROM r))
    SELECT count(*)::int AS ok FROM r`,
  // $1 run, $2 token, $3 t, $4 key, $5 pid, $6 pid start. A pid recorded is an agent process started on the session.
  setPid: `WITH r AS (SELECT id FROM runs WHERE id = $1 AND owner_token = $2 FOR UPDATE),
    x AS (UPDATE executions SET pid = $5::int, pid_start = $6::text, spawned = spawned + CASE WHEN $5::int IS NULL THEN 0 ELSE 1 END,
        hold_pid = CASE WHEN hold_kind = 'agent' THEN $5::int ELSE hold_pid END,
        hold_pid_start = CASE WHEN hold_kind = 'agent' THEN $6::text ELSE hold_pid_start END, updated_at = $3
      WHERE run_id = $1 AND call_key = $4 AND EXISTS (SELECT 1 FROM r))
    SELECT count(*)::int AS ok FROM r`,

  // The same and the agent's audit event ($7 key, $8 type, $9 actor, $10 channel, $11 data) in one statement.
  setPidStarted: `WITH r AS (UPDATE runs SET events = events + 1, updated_at = $3 WHERE id = $1 AND owner_token = $2 RETURNING events),
    x AS (UPDATE executions SET pid = $5::int, pid_start = $6::text, spawned = spawned + CASE WHEN $5::int IS NULL THEN 0 ELSE 1 END,
        hold_pid = CASE WHEN hold_kind = 'agent' THEN $5::int ELSE hold_pid END,
        hold_pid_start = CASE WHEN hold_kind = 'agent' THEN $6::text ELSE hold_pid_start END, updated_at = $3
      WHERE run_id = $1 AND call_key = $4 AND EXISTS (SELECT 1 FROM r)),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $7::text, $8::text, $9::text, $10::text, $11::text, $3 FROM r)
    SELECT count(*)::int AS ok FROM r`,

  // $1 run, $2 token, $3 t, $4 key, $5 session id.
  setSessionId: `WITH r AS (SELECT id FROM runs WHERE id = $1 AND owner_token = $2 FOR UPDATE),
    x AS (UPDATE executions SET session_id = $5::text, updated_at = $3 WHERE run_id = $1 AND call_key = $4 AND EXISTS (SELECT 1 FROM r))
    SELECT count(*)::int AS ok FROM r`,

  /** An audit event: the run's counter and the row in one statement ($1 run, $2 t, $3 key … $7 data). */
  event: `WITH r AS (UPDATE runs SET events = events + 1, updated_at = $2 WHERE id = $1 RETURNING events)
    INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $3::text, $4::text, $5::text, $6::text, $7::text, $2 FROM r RETURNING id`,
  /** The same, waking LISTENers on channel $8 with payload $9 when it commits. */
  eventWake: `WITH r AS (UPDATE runs SET events = events + 1, updated_at = $2 WHERE id = $1 RETURNING events),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $3::text, $4::text, $5::text, $6::text, $7::text, $2 FROM r RETURNING id)
    SELECT e.id, pg_notify($8, $9) AS woke FROM e`,
  /** The same, fenced by the owner token ($8), for a driver's own entries (log lines). */
  fencedEvent: `WITH r AS (UPDATE runs SET events = events + 1, updated_at = $2 WHERE id = $1 AND owner_token = $8 RETURNING events)
    INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $3::text, $4::text, $5::text, $6::text, $7::text, $2 FROM r RETURNING id`,

  getExecution: 'SELECT * FROM executions WHERE run_id = $1 AND call_key = $2',
  restartExecution: `UPDATE executions SET status = 'running', attempts = attempts + 1, error = NULL, activity = NULL, activity_at = NULL,
      signal_path = COALESCE($4, signal_path), attempt_at = $3, updated_at = $3, finished_at = NULL,
      hold_kind = 'agent', hold_token = $5, hold_by = agent, hold_host = $6, hold_pid = NULL, hold_pid_start = NULL, hold_since = $3
    WHERE run_id = $1 AND call_key = $2`,
  markRunning: `UPDATE runs SET ${GOES_ON}, updated_at = $2 WHERE id = $1`,
  touchRun: 'UPDATE runs SET updated_at = $2 WHERE id = $1',
  takeContinueHold: `UPDATE executions SET hold_kind = 'continue', hold_token = $3, hold_by = $4, hold_host = $5, hold_pid = $6, hold_pid_start = $7,
      hold_since = $8, updated_at = $8 WHERE run_id = $1 AND call_key = $2`,
  releaseHold: `UPDATE executions SET ${NO_HOLD}, updated_at = $4 WHERE run_id = $1 AND call_key = $2 AND hold_token = $3 RETURNING seq`,
  clearHold: `UPDATE executions SET ${NO_HOLD} WHERE run_id = $1 AND call_key = $2`,
  // $1 run, $2 key, $3 t, $4 error, $5-$11 metrics
  failExecution: `UPDATE executions SET status = 'failed', error = $4, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD}, ${metrics(5)},
      updated_at = $3, finished_at = $3 WHERE run_id = $1 AND call_key = $2 AND ${OPEN} RETURNING seq`,
  closeExecution: `UPDATE executions SET status = 'completed', updated_at = $3, finished_at = $3 WHERE run_id = $1 AND call_key = $2 AND status = 'running'`,
  // $1 run, $2 key, $3 t, $4 waiting for, $5 awaiting, $6 claim timeout, $7-$13 metrics, $14 the ask's decisions (JSON)
  markWaiting: `UPDATE executions SET status = 'waiting_human', ask = ask + 1, waiting_for = $4, awaiting = $5, claim_timeout = $6, ask_decisions = $14::text,
      pid = NULL, pid_start = NULL, ${END_AGENT_HOLD}, activity = NULL, ${metrics(7)}, updated_at = $3
    WHERE run_id = $1 AND call_key = $2 AND status <> 'completed' RETURNING *`,
  // $1 run, $2 key, $3 t, $4 wait kind, $5 due (null: none). A completed call waits on nothing.
  markWaitingOn: `UPDATE executions SET status = 'waiting', wait_kind = $4, wait_until = $5::bigint, wait_run = $6::bigint, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD},
      activity = NULL, updated_at = $3
    WHERE run_id = $1 AND call_key = $2 AND status <> 'completed' RETURNING *`,
  // $1 run, $2 key, $3 t, $4 result. Under the run row's lock: a call still waiting completes and is handed over, its wake timers fired.
  endWait: `WITH c AS (SELECT seq FROM executions WHERE run_id = $1 AND call_key = $2 AND status = 'waiting' FOR UPDATE),
    w AS (UPDATE timers SET fired_at = $3 WHERE run_id = $1 AND call_key = $2 AND kind = 'wake' AND fired_at IS NULL AND EXISTS (SELECT 1 FROM c)),
    r AS (UPDATE runs SET delivered = delivered + 1, ${GOES_ON}, updated_at = $3 WHERE id = $1 AND EXISTS (SELECT 1 FROM c) RETURNING delivered),
    x AS (UPDATE executions SET status = 'completed', result = $4, delivered = r.delivered, waiting_for = NULL, updated_at = $3, finished_at = $3
      FROM r WHERE run_id = $1 AND call_key = $2 RETURNING r.delivered AS n)
    SELECT n FROM x`,
  /** $2 the run's rules (JSON; null: unchanged), $3 whether its hold ends, $4 t. */
  setRules:
    'UPDATE runs SET rules = COALESCE($2::text, rules), held = CASE WHEN $3::bool THEN NULL ELSE held END, updated_at = $4 WHERE id = $1',
  /** Only an open run is held ($2 why): its end follows in the same transaction. */
  setHeld: `UPDATE runs SET held = $2 WHERE id = $1 AND ${OPEN} RETURNING id`,
  /** Also revives a failed run (retry): its old failure reason and end time no longer hold. */
  setRunStatus: `UPDATE runs SET status = $2, reason = NULL, ended_at = NULL, updated_at = $3 WHERE id = $1 AND status NOT IN ('completed','stuck')`,
  /**
   * A run's end, its calls still open (running, or waiting for a person) failed with it ($6 their
   * error) but a held run's step ($12), and its event ($7 key … $11 data), in one statement. Run inside the transaction that
   * locked the run row, so the calls it reads are current.
   */
  endRun: `WITH r AS (UPDATE runs SET status = $2, reason = $3, result = $4, ended_at = $5, updated_at = $5, events = events + 1
      WHERE id = $1 AND ${OPEN} RETURNING events),
    x AS (UPDATE executions SET status = 'failed', error = $6, pid = NULL, pid_start = NULL, ${END_AGENT_HOLD}, updated_at = $5, finished_at = $5
      WHERE run_id = $1 AND ${OPEN} AND call_key IS DISTINCT FROM $12::text AND EXISTS (SELECT 1 FROM r)),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $7::text, $8::text, $9::text, $10::text, $11::text, $5 FROM r)
    SELECT events FROM r`,
  /** An ask's call and its answer, if one was recorded (read after the run row's lock: a racing first answer is seen). */
  callAndAnswer: `SELECT (SELECT row_to_json(e) FROM executions e WHERE e.run_id = $1 AND e.call_key = $2) AS exec,
    (SELECT row_to_json(a) FROM answers a WHERE a.run_id = $1 AND a.call_key = $2 AND a.ask = $3) AS first`,
  /** An answer with its human_answered event ($11 data) and, when $12 names the channel, a wake-up ($13). */
  insertAnswer: `WITH x AS (INSERT INTO answers (run_id, call_key, ask, verdict, status, message, decisions, responder, channel, answered_at)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)),
    r AS (UPDATE runs SET events = events + 1, updated_at = $10 WHERE id = $1 RETURNING events),
    e AS (INSERT INTO events (${EVENT_COLUMNS}) SELECT $1, r.events, $2, 'human_answered', $8, $9, $11::text, $10 FROM r)
    SELECT CASE WHEN $12::text IS NULL THEN NULL ELSE pg_notify($12::text, $13::text) END AS woke`,
  /** Several timers of one ask in one statement ($4 kinds, $5 due times, $6 data). */
  insertTimers: `INSERT INTO timers (run_id, call_key, ask, kind, due_at, data)
    SELECT $1, $2, $3, k, d, j FROM unnest($4::text[], $5::bigint[], $6::text[]) AS t(k, d, j)`,
  timerFired: 'UPDATE timers SET fired_at = $2 WHERE id = $1 AND fired_at IS NULL RETURNING id',
  /** What a timer's effect depends on: its call's state and whether its ask was answered. */
  timerCall: `SELECT e.status, e.ask, EXISTS (SELECT 1 FROM answers a WHERE a.run_id = $1 AND a.call_key = $2 AND a.ask = $3) AS answered
    FROM executions e WHERE e.run_id = $1 AND e.call_key = $2`,
} as const;
