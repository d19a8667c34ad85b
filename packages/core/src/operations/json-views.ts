import { callDecisions, requestId } from '../decisions/call-decisions.js';
import type { RunLook } from '../run-status.js';
import type { AskClaim, Execution, Run, RunEvent, RunRules } from '../types.js';
import { describeEntry } from '../notify/parse-target.js';
import type { ClaimedByJson, EventJson, ExecutionJson, PendingJson, RulesJson, RunJson } from './shapes.js';
import { answerSuggestions, suggestionCommand } from '../decisions/answer-hint.js';
import { handleOf } from '../decisions/ask-handle.js';
import { waitingOnJson, waitingOnWords } from '../waits/waiting-on.js';

const iso = (t: number | null) => (t == null ? null : new Date(t).toISOString());

/*
 * The `--json` documents (shapes.ts) built from the store's rows: what the CLI prints and the
 * server's /api returns, alike.
 */

/**
 * A run object: `waiting` the ask it shows (its oldest open one), `running` the call at work
 * now (workingCall), each as the caller read them; `look` how it is shown (runLook, judged by
 * the operations' liveness: the store's clock), so every front end calls it the same.
 */
export function runJson(
  run: Run,
  look: RunLook,
  waiting: Execution | null,
  costUsd: number,
  running: Execution | null = null,
  waitsOn: Execution[] = [],
): RunJson {
  return {
    id: run.id,
    spec: run.spec,
    status: look.status as RunJson['status'],
    prompt: run.prompt,
    workspace: run.workspace,
    branch: run.branch,
    agent: currentAgent(waiting, running),
    awaiting: waiting?.awaiting ?? null,
    waiting_for: waiting?.waitingFor ?? (run.status === 'waiting' ? waitingOnWords(waitsOn) : null),
    waiting_on: run.status === 'waiting' ? waitingOnJson(waitsOn) : [],
    activity: running
      ? {
          key: running.key,
          agent: running.agent,
          text: running.activity,
          since: iso(running.attemptAt ?? running.startedAt)!,
        }
      : null,
    driver_gone_since: iso(look.goneSince),
    reason: run.reason,
    result: run.result,
    cost_usd: costUsd,
    seed: run.seed,
    workflow_hash: run.workflowHash,
    parent: run.parentId,
    priority: run.priority,
    key: run.queueKey,
    trigger: run.trigger && { kind: run.trigger.kind, name: run.trigger.name, by: run.trigger.by },
    created_at: iso(run.createdAt)!,
    updated_at: iso(run.updatedAt)!,
    ended_at: iso(run.endedAt),
  };
}

/**
 * The run's `agent`, the same in list, status and log --json: the one it is on now — the agent
 * its ask waits on, else the one at work — and null once it has ended or between calls (the
 * reference's AGENT column; which agent ran last is in its calls).
 */
export function currentAgent(waiting: Execution | null, running: Execution | null): string | null {
  return waiting?.agent ?? running?.agent ?? null;
}

/** One execution; `full` (shop log --json, a replayable record) adds the prompt it was given. */
export function executionJson(e: Execution, full = false): ExecutionJson {
  return {
    ...(full ? { prompt: e.prompt } : {}),
    key: e.key,
    seq: e.seq,
    kind: e.kind,
    agent: e.agent,
    status: e.status,
    fingerprint: e.fingerprint,
    delivered: e.delivered,
    request: e.request,
    session_id: e.sessionId,
    cwd: e.cwd,
    awaiting: e.awaiting,
    waiting_for: e.waitingFor,
    result: e.result,
    error: e.error,
    cost_usd: e.costUsd,
    input_tokens: e.tokens.input,
    output_tokens: e.tokens.output,
    cache_read_tokens: e.tokens.cacheRead,
    cache_write_tokens: e.tokens.cacheWrite,
    num_turns: e.numTurns,
    duration_ms: e.durationMs,
    attempts: e.attempts,
    ask: e.ask,
    activity: e.activity,
    activity_at: iso(e.activityAt),
    attempt_at: iso(e.attemptAt),
    session_hold: e.hold
      ? { kind: e.hold.kind, by: e.hold.by, host: e.hold.host, pid: e.hold.pid, since: iso(e.hold.since)! }
      : null,
    started_at: iso(e.startedAt),
    finished_at: iso(e.finishedAt),
  };
}

/** A pending ask (its run is e.runId; `_runId` stays for the callers' shape). */
export function pendingJson(_runId: number, e: Execution): PendingJson {
  return {
    key: e.key,
    kind: e.kind as PendingJson['kind'],
    agent: e.agent,
    awaiting: e.awaiting,
    question: e.waitingFor,
    session_id: e.sessionId,
    waiting_since: iso(e.updatedAt),
    ask: e.ask,
    request_id: requestId(e),
    decisions: callDecisions(e),
    handle: handleOf(e),
    claimed_by: claimedByJson(e.claim),
    answer_with: answerSuggestions(e).map(suggestionCommand),
    suggestions: answerSuggestions(e),
  };
}

export function claimedByJson(c: AskClaim | null): ClaimedByJson | null {
  return c ? { by: c.by, channel: c.channel, since: iso(c.since)!, until: iso(c.until)! } : null;
}

export function eventJson(e: RunEvent): EventJson {
  return { id: e.id, at: iso(e.at)!, type: e.type, key: e.key, actor: e.actor, channel: e.channel, data: e.data };
}

/** config{} keys whose entries may carry secrets (a webhook's token, a command's flags): shown as scheme and host only. */
const TARGET_KEYS = ['notify', 'notify_on_waiting', 'escalate_to'];

/** A run's rules as shop status shows them: its notify targets' secrets never shown (the store keeps them whole). */
export function rulesJson(rules: RunRules): RulesJson {
  const config =
    rules.config &&
    Object.fromEntries(
      Object.entries(rules.config).map(([k, v]) => [
        k,
        TARGET_KEYS.includes(k) && Array.isArray(v) ? v.map((e) => (typeof e === 'string' ? describeEntry(e) : e)) : v,
      ]),
    );
  return { ...rules, config };
}
