import Database from 'better-sqlite3';
import { signalPath } from '../../signals/signal.js';

/**
 * A recorded history: the output of `shop log <id> --json` (LogJsonSchema in
 * packages/core/src/operations/shapes.ts), typed here as far as the import reads it.
 */
export interface History {
  run: {
    id: number;
    spec: string;
    status: string;
    prompt: string;
    workspace: string;
    branch: string | null;
    reason: string | null;
    result: unknown;
    seed: number;
    workflow_hash: string | null;
    created_at: string;
    updated_at: string;
    ended_at: string | null;
  };
  executions: {
    key: string;
    seq: number;
    kind: string;
    agent: string | null;
    status: string;
    fingerprint: string;
    delivered: number | null;
    request: unknown;
    prompt?: string | null;
    session_id: string | null;
    cwd: string | null;
    awaiting: string | null;
    waiting_for: string | null;
    result: unknown;
    error: string | null;
    cost_usd: number | null;
    num_turns: number | null;
    duration_ms: number | null;
    attempts: number;
    ask: number;
    started_at: string | null;
    finished_at: string | null;
  }[];
  events: {
    id: number;
    at: string;
    type: string;
    key: string | null;
    actor: string;
    channel: string;
    data: Record<string, unknown> | null;
  }[];
}

export interface ImportOptions {
  /** The workflow path the run is recorded with (its basename names the chunk in Lua errors). */
  workflowPath: string;
  /** Where signal files live in this store's world: the log does not carry signal paths, they are derived (run, call, agent). */
  signalsDir: string;
  /**
   * Import an ended run as it stood just before its end: status `running`, no result, no end
   * time, and without the event that ended it — so `driveRun` replays it instead of returning
   * the ended state at once.
   */
  reopen?: boolean;
}

const ENDING_EVENTS = new Set(['completed', 'stuck', 'failed', 'stopped']);
const ms = (iso: string | null | undefined): number | null => (iso == null ? null : Date.parse(iso));
const json = (v: unknown): string | null => (v === undefined ? null : JSON.stringify(v));

/**
 * Inserts a recorded history into the SQLite store at `dbFile` (already created, e.g. by
 * openSqliteStore) with raw SQL on a connection of its own: the run (its seed and workflow
 * hash kept, no owner), every execution as recorded (fingerprint, delivery number, result,
 * asks), the answers rebuilt from the `human_answered` events, and the events themselves.
 */
export function importHistory(dbFile: string, history: History, opts: ImportOptions): void {
  const db = new Database(dbFile);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('foreign_keys = ON');
    db.transaction(() => insertAll(db, history, opts))();
  } finally {
    db.close();
  }
}

function insertAll(db: Database.Database, h: History, opts: ImportOptions) {
  const { run } = h;
  const ended = run.status === 'completed' || run.status === 'stuck' || run.status === 'failed';
  const reopen = Boolean(opts.reopen && ended);
  // `interrupted` is how status shows a running run whose driver is gone; the store says running.
  const status = reopen || run.status === 'interrupted' ? 'running' : run.status;
  let events = h.events;
  if (reopen) {
    const last = events.findLastIndex((e) => e.key == null && ENDING_EVENTS.has(e.type));
    if (last >= 0) events = events.filter((_, i) => i !== last);
  }
  const lastAt = events.length ? ms(events.at(-1)!.at)! : ms(run.updated_at)!;

  db.prepare(
    `INSERT INTO runs (id, spec, workflow_path, workflow_hash, prompt, status, workspace, branch, reason, result, seed,
      owner_token, owner_host, owner_pid, owner_pid_start, lease_until, stop_reason, stop_by, stop_at, created_at, updated_at, ended_at)
    VALUES (@id, @spec, @workflowPath, @workflowHash, @prompt, @status, @workspace, @branch, @reason, @result, @seed,
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, @createdAt, @updatedAt, @endedAt)`,
  ).run({
    id: run.id,
    spec: run.spec,
    workflowPath: opts.workflowPath,
    workflowHash: run.workflow_hash,
    prompt: run.prompt,
    status,
    workspace: run.workspace,
    branch: run.branch,
    reason: reopen ? null : run.reason,
    result: reopen || run.result == null ? null : json(run.result),
    seed: run.seed,
    createdAt: ms(run.created_at),
    updatedAt: reopen ? lastAt : ms(run.updated_at),
    endedAt: reopen ? null : ms(run.ended_at),
  });

  // A call's last change: its latest event (waiting, answered…), else its finish or start.
  const lastEvent = new Map<string, number>();
  for (const e of events) if (e.key) lastEvent.set(e.key, ms(e.at)!);
  const insertExecution =
    db.prepare(`INSERT INTO executions (run_id, call_key, seq, kind, agent, fingerprint, status, delivered, session_id, cwd,
      prompt, request, result, signal_path, waiting_for, awaiting, error, cost_usd, num_turns, duration_ms, pid, pid_start, attempts, ask,
      started_at, updated_at, finished_at)
    VALUES (@runId, @key, @seq, @kind, @agent, @fingerprint, @status, @delivered, @sessionId, @cwd,
      @prompt, @request, @result, @signalPath, @waitingFor, @awaiting, @error, @cost, @turns, @duration, NULL, NULL, @attempts, @ask,
      @startedAt, @updatedAt, @finishedAt)`);
  for (const e of h.executions) {
    const startedAt = ms(e.started_at) ?? ms(run.created_at)!;
    insertExecution.run({
      runId: run.id,
      key: e.key,
      seq: e.seq,
      kind: e.kind,
      agent: e.agent,
      fingerprint: e.fingerprint,
      status: e.status,
      delivered: e.delivered,
      sessionId: e.session_id,
      cwd: e.cwd,
      prompt: e.prompt ?? null,
      // As the store writes them: the request always as JSON, a completed call's result too (even null).
      request: JSON.stringify(e.request ?? null),
      result: e.status === 'completed' ? JSON.stringify(e.result ?? null) : json(e.result ?? undefined),
      signalPath: e.kind === 'run' && e.agent ? signalPath(opts.signalsDir, run.id, e.key, e.agent) : null,
      waitingFor: e.waiting_for,
      awaiting: e.awaiting,
      error: e.error,
      cost: e.cost_usd,
      turns: e.num_turns,
      duration: e.duration_ms,
      attempts: e.attempts,
      ask: e.ask,
      startedAt,
      updatedAt: Math.max(lastEvent.get(e.key) ?? 0, ms(e.finished_at) ?? startedAt),
      finishedAt: ms(e.finished_at),
    });
  }

  const insertAnswer =
    db.prepare(`INSERT INTO answers (run_id, call_key, ask, verdict, status, message, decisions, responder, channel, answered_at)
    VALUES (@runId, @key, @ask, @verdict, @status, @message, @decisions, @responder, @channel, @answeredAt)`);
  for (const e of events) {
    if (e.type !== 'human_answered' || !e.key || !e.data) continue;
    const d = e.data;
    insertAnswer.run({
      runId: run.id,
      key: e.key,
      ask: Number(d.ask),
      verdict: (d.verdict as string | null) ?? null,
      status: (d.status as string | null) ?? null,
      message: (d.message as string | null) ?? null,
      decisions: d.decisions == null ? null : JSON.stringify(d.decisions),
      responder: e.actor,
      channel: e.channel,
      answeredAt: ms(e.at),
    });
  }

  const insertEvent = db.prepare(
    'INSERT INTO events (id, run_id, call_key, type, actor, channel, data, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  for (const e of events)
    insertEvent.run(
      e.id,
      run.id,
      e.key,
      e.type,
      e.actor,
      e.channel,
      e.data == null ? null : JSON.stringify(e.data),
      ms(e.at),
    );
  // The run's counters, as the store keeps them: the next call, delivery and event go after these.
  db.prepare(
    `UPDATE runs SET
      calls = COALESCE((SELECT MAX(seq) FROM executions WHERE run_id = @id), 0),
      delivered = COALESCE((SELECT MAX(delivered) FROM executions WHERE run_id = @id), 0),
      events = COALESCE((SELECT MAX(id) FROM events WHERE run_id = @id), 0)
    WHERE id = @id`,
  ).run({ id: run.id });
}
