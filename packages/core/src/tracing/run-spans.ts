import type { Answer, Execution, Run } from '../types.js';
import type { RunSpan } from './span-sink.js';
import { askPart, attemptPart, callSpanId, runTrace } from './trace-ids.js';

/** Text from agents and people (an answerer's name, a session id, an error) is cut to this many characters. */
const MAX_TEXT = 200;

const cut = (s: string): string => (s.length > MAX_TEXT ? `${s.slice(0, MAX_TEXT - 1)}…` : s);

/** The run itself: the trace's root, from its creation to its end. */
export function rootSpan(run: Run, endMs: number): RunSpan {
  const { traceId, rootSpanId } = runTrace(run);
  const failed = run.status === 'failed' || run.status === 'stuck';
  return {
    traceId,
    spanId: rootSpanId,
    parentSpanId: null,
    name: `run ${cut(run.spec)}`,
    startMs: run.createdAt,
    endMs: Math.max(endMs, run.createdAt),
    attributes: {
      'shop.run.id': run.id,
      'shop.workflow': cut(run.spec),
      'shop.run.status': run.status,
      ...(run.parentId === null ? {} : { 'shop.run.parent_id': run.parentId }),
      ...(run.trigger ? { 'shop.run.trigger': run.trigger.kind } : {}),
    },
    error: failed ? cut(run.reason ?? run.status) : null,
  };
}

/** A span under the run's root for one of its calls. */
function callSpan(run: Run, exec: Execution, part: string, name: string, startMs: number, endMs: number): RunSpan {
  const { traceId, rootSpanId } = runTrace(run);
  return {
    traceId,
    spanId: callSpanId(run, exec.key, part),
    parentSpanId: rootSpanId,
    name,
    startMs,
    endMs: Math.max(endMs, startMs),
    attributes: { 'shop.run.id': run.id, 'shop.call.key': cut(exec.key), 'shop.call.kind': exec.kind },
    error: null,
  };
}

/**
 * One attempt of an agent step (its process, from start to report): its agent, CLI, session,
 * cost, tokens and turns when the CLI told them, and how it ended (`outcome`: completed,
 * needs_human, failed, restarted). The store sums a call's spend over its invocations: given the
 * call as it was `before` this attempt's end, the span carries this attempt's own share.
 */
export function attemptSpan(
  run: Run,
  exec: Execution,
  outcome: string,
  endMs: number,
  before: Execution | null = null,
): RunSpan {
  const agent = exec.agent ?? '';
  const span = callSpan(
    run,
    exec,
    attemptPart(exec.attempts),
    `agent ${cut(agent)}`,
    exec.attemptAt ?? exec.startedAt,
    endMs,
  );
  const cli = run.rules?.agents[agent]?.cli ?? 'claude';
  const reported = (exec.result as { status?: unknown } | null)?.status;
  Object.assign(span.attributes, {
    'shop.agent': cut(agent),
    'shop.agent.cli': cut(cli),
    'shop.attempt': exec.attempts,
    'shop.outcome': outcome,
    ...(exec.sessionId ? { 'shop.session.id': cut(exec.sessionId) } : {}),
    ...spentAttributes(exec, before),
    ...(exec.numTurns === null ? {} : { 'shop.agent.turns': exec.numTurns }),
    ...(typeof reported === 'string' && outcome === 'completed' ? { 'shop.agent.status': cut(reported) } : {}),
  });
  if (outcome === 'failed') span.error = cut(exec.error ?? 'failed');
  return span;
}

/** Tokens under OpenTelemetry's GenAI names where they have one; cost and cache tokens under Shop's. */
const SPEND: [string, (e: Execution) => number | null][] = [
  ['shop.cost_usd', (e) => e.costUsd],
  ['gen_ai.usage.input_tokens', (e) => e.tokens.input],
  ['gen_ai.usage.output_tokens', (e) => e.tokens.output],
  ['shop.tokens.cache_read', (e) => e.tokens.cacheRead],
  ['shop.tokens.cache_write', (e) => e.tokens.cacheWrite],
];

function spentAttributes(exec: Execution, before: Execution | null): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, of] of SPEND) {
    const now = of(exec);
    if (now === null) continue;
    const share = now - (before ? (of(before) ?? 0) : 0);
    out[name] = name === 'shop.cost_usd' ? Math.round(share * 1e6) / 1e6 : share;
  }
  return out;
}

/**
 * A wait for a person: from the ask to its answer, naming who answered (a person, or
 * system:timeout) and how. `startMs`: when it was asked.
 */
export function askSpan(run: Run, exec: Execution, answer: Answer | null, startMs: number, endMs: number): RunSpan {
  const span = callSpan(run, exec, askPart(exec.ask), 'ask', startMs, answer?.answeredAt ?? endMs);
  Object.assign(span.attributes, {
    'shop.ask.number': exec.ask,
    ...(exec.agent ? { 'shop.agent': cut(exec.agent) } : {}),
    ...(exec.awaiting ? { 'shop.ask.awaiting': cut(exec.awaiting) } : {}),
    ...(answer ? { 'shop.ask.answerer': cut(answer.responder), 'shop.ask.channel': answer.channel } : {}),
    ...(answer?.verdict ? { 'shop.ask.verdict': answer.verdict } : {}),
  });
  return span;
}

/** Any other call (sh, sleep, a wait on an event or a run, a child workflow, a parallel) as it ended. */
export function otherSpan(run: Run, exec: Execution, endMs: number): RunSpan {
  const span = callSpan(run, exec, 'call', exec.kind, exec.startedAt, exec.finishedAt ?? endMs);
  span.attributes['shop.outcome'] = exec.status;
  if (exec.waitKind) span.attributes['shop.wait.kind'] = exec.waitKind;
  if (exec.status === 'failed') span.error = cut(exec.error ?? 'failed');
  return span;
}
