import type { Person } from './access-store.js';
import type { SentEvent } from './sent-event-store.js';
import type {
  Answer,
  AskClaim,
  Channel,
  Execution,
  ReplayRecord,
  Run,
  RunEvent,
  SessionHold,
  Timer,
} from '../types.js';

/** Row ⇄ record mapping for the SQLite adapter; the only place that knows column names. */
export type Row = Record<string, unknown>;

const json = (v: unknown): unknown => (v == null ? null : JSON.parse(String(v)));
const num = (v: unknown): number | null => (v == null ? null : Number(v));
/** Dollars to the micro-dollar: a sum of 0.0125s reads 0.0375, not 0.037500000000000006. */
export const roundUsd = (n: number): number => Math.round(n * 1e6) / 1e6;
const str = (v: unknown): string | null => (v == null ? null : String(v));

export function toRun(r: Row): Run {
  return {
    id: Number(r.id),
    spec: String(r.spec),
    workflowPath: String(r.workflow_path),
    prompt: String(r.prompt),
    status: r.status as Run['status'],
    workspace: String(r.workspace),
    branch: str(r.branch),
    reason: str(r.reason),
    result: json(r.result),
    seed: Number(r.seed),
    workflowHash: str(r.workflow_hash),
    owner:
      r.owner_token == null
        ? null
        : {
            token: String(r.owner_token),
            host: String(r.owner_host ?? ''),
            pid: Number(r.owner_pid ?? 0),
            pidStart: str(r.owner_pid_start),
            leaseUntil: Number(r.lease_until ?? 0),
          },
    stop:
      r.stop_at == null
        ? null
        : { reason: String(r.stop_reason ?? ''), by: String(r.stop_by ?? ''), at: Number(r.stop_at) },
    rules: (json(r.rules) as Run['rules']) ?? null,
    held: (json(r.held) as Run['held']) ?? null,
    parentId: num(r.parent_id),
    parentKey: str(r.parent_key),
    priority: Number(r.priority ?? 0),
    queueKey: str(r.queue_key),
    concurrency: num(r.concurrency),
    trigger: (json(r.trigger_json) as Run['trigger']) ?? null,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    endedAt: num(r.ended_at),
  };
}

export function toExecution(r: Row): Execution {
  return {
    runId: Number(r.run_id),
    key: String(r.call_key),
    seq: Number(r.seq),
    kind: r.kind as Execution['kind'],
    agent: str(r.agent),
    fingerprint: String(r.fingerprint),
    status: r.status as Execution['status'],
    delivered: num(r.delivered),
    sessionId: str(r.session_id),
    cwd: str(r.cwd),
    prompt: str(r.prompt),
    request: json(r.request),
    result: json(r.result),
    signalPath: str(r.signal_path),
    waitingFor: str(r.waiting_for),
    awaiting: str(r.awaiting),
    error: str(r.error),
    costUsd: r.cost_usd == null ? null : roundUsd(Number(r.cost_usd)),
    tokens: {
      input: num(r.input_tokens),
      output: num(r.output_tokens),
      cacheRead: num(r.cache_read_tokens),
      cacheWrite: num(r.cache_write_tokens),
    },
    numTurns: num(r.num_turns),
    durationMs: num(r.duration_ms),
    pid: num(r.pid),
    pidStart: str(r.pid_start),
    attemptAt: num(r.attempt_at),
    activity: str(r.activity),
    activityAt: num(r.activity_at),
    attempts: Number(r.attempts),
    ask: Number(r.ask),
    spawned: Number(r.spawned ?? 0) > 0,
    hold: toHold(r),
    claimTimeout: num(r.claim_timeout),
    askDecisions: (json(r.ask_decisions) as Execution['askDecisions']) ?? null,
    waitKind:
      r.status === 'waiting_human'
        ? 'person'
        : r.status === 'waiting'
          ? ((str(r.wait_kind) as Execution['waitKind']) ?? 'timer')
          : null,
    waitUntil: r.status === 'waiting' ? num(r.wait_until) : null,
    claim: toClaim(r),
    startedAt: Number(r.started_at),
    updatedAt: Number(r.updated_at),
    finishedAt: num(r.finished_at),
  };
}

function toHold(r: Row): SessionHold | null {
  if (r.hold_kind == null) return null;
  return {
    kind: r.hold_kind as SessionHold['kind'],
    token: String(r.hold_token ?? ''),
    by: String(r.hold_by ?? ''),
    host: String(r.hold_host ?? ''),
    pid: num(r.hold_pid),
    pidStart: str(r.hold_pid_start),
    since: Number(r.hold_since ?? 0),
  };
}

/** The claim columns a read joins in (CLAIM_COLUMNS), present only while the claim lasts. */
function toClaim(r: Row): AskClaim | null {
  if (r.claim_by == null) return null;
  return {
    by: String(r.claim_by),
    channel: r.claim_channel as Channel,
    since: Number(r.claim_since),
    until: Number(r.claim_until),
  };
}

/** One call as replay reads it: only what replay compares and returns (both stores select just these columns). */
export function toReplayRecord(r: Row): ReplayRecord {
  return {
    key: String(r.call_key),
    kind: r.kind as ReplayRecord['kind'],
    fingerprint: String(r.fingerprint),
    status: r.status as ReplayRecord['status'],
    resultJson: r.result == null ? null : String(r.result),
    delivered: r.delivered == null ? null : Number(r.delivered),
  };
}

export function toAnswer(r: Row): Answer {
  return {
    runId: Number(r.run_id),
    key: String(r.call_key),
    ask: Number(r.ask),
    verdict: str(r.verdict) as Answer['verdict'],
    status: str(r.status),
    message: str(r.message),
    decisions: json(r.decisions) as Answer['decisions'],
    responder: String(r.responder),
    channel: r.channel as Channel,
    answeredAt: Number(r.answered_at),
  };
}

export function toEvent(r: Row): RunEvent {
  return {
    id: Number(r.id),
    runId: Number(r.run_id),
    key: str(r.call_key),
    type: String(r.type),
    actor: String(r.actor),
    channel: r.channel as Channel,
    data: json(r.data) as RunEvent['data'],
    at: Number(r.at),
  };
}

export function toTimer(r: Row): Timer {
  return {
    id: Number(r.id),
    runId: Number(r.run_id),
    key: String(r.call_key),
    ask: Number(r.ask),
    kind: r.kind as Timer['kind'],
    dueAt: Number(r.due_at),
    firedAt: num(r.fired_at),
    data: (json(r.data) ?? {}) as Timer['data'],
  };
}

/** A person row (shop access) as the port's Person. */
export function toPerson(r: Row): Person {
  return {
    name: String(r.name),
    kind: r.kind === 'token' ? 'token' : 'login',
    tokenHash: String(r.token_hash),
    createdAt: Number(r.created_at),
    createdBy: String(r.created_by),
    revokedAt: r.revoked_at == null ? null : Number(r.revoked_at),
    lastSeenAt: r.last_seen_at == null ? null : Number(r.last_seen_at),
  };
}

/** A sent event (sent_events), not the audit trail's: its key is `event_key`, its target `run_id`. */
export function toSentEvent(r: Row): SentEvent {
  return {
    id: Number(r.id),
    name: String(r.name),
    key: str(r.event_key),
    data: json(r.data),
    sentAt: Number(r.sent_at),
    sentBy: String(r.sent_by),
    channel: r.channel as SentEvent['channel'],
    runId: num(r.run_id),
    sendId: str(r.send_id),
  };
}
