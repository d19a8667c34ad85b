import type { GateDecision } from '../agents/gates.js';
import { describeTransient, type Transient } from '../agents/transient.js';
import { AgentError, BudgetSpent } from '../errors.js';
import type { AgentMetrics } from '../types.js';
import { Aborted, type Settled } from './outcome.js';
import type { Clock, RetryTiming } from './ports.js';

/**
 * Transient agent failures (API overloaded, rate limited, 5xx, network) retried on the same
 * session with exponential backoff and jitter. Each retry is an `agent_retry` event in the
 * audit trail, written before the wait: a driver that dies during the wait leaves it there,
 * and the next one (`pendingRetry`) waits out the rest and goes on counting from it.
 */

/** Attempts after the first, unless run(…, {retries}) or config{retries} says otherwise. */
export const DEFAULT_RETRIES = 3;

/**
 * Real APIs: 2 s doubling to 60 s (a rate limit's window is a minute). SHOP_RETRY_BASE_MS and
 * SHOP_RETRY_CAP_MS change them (tests: a few ms, or a long wait to stop during).
 */
export function nodeRetryTiming(env: NodeJS.ProcessEnv = process.env): RetryTiming {
  const ms = (v: string | undefined, d: number) => (v !== undefined && /^\d+$/.test(v) ? Number(v) : d);
  const baseMs = ms(env.SHOP_RETRY_BASE_MS, 2_000);
  return {
    baseMs,
    capMs: Math.max(baseMs, ms(env.SHOP_RETRY_CAP_MS, 60_000)),
    sleep: abortableSleep,
    random: Math.random,
  };
}

/**
 * The wait before retry `n` (1 = the first retry): "equal jitter" — half the doubled ceiling
 * for sure, the other half at random. Random spreads runs that failed together; the sure half
 * keeps a rate-limited agent from coming back at once.
 */
export function backoffMs(n: number, timing: Pick<RetryTiming, 'baseMs' | 'capMs' | 'random'>): number {
  const ceiling = Math.min(timing.capMs, timing.baseMs * 2 ** Math.min(n - 1, 30));
  return Math.round(ceiling / 2 + timing.random() * (ceiling / 2));
}

export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new Aborted());
    const done = () => {
      clearTimeout(timer);
      reject(new Aborted());
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', done);
      resolve();
    }, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A failure worth another attempt: thrown by one attempt, caught by `withRetries`. */
export class TransientAgentError extends AgentError {
  constructor(
    message: string,
    readonly transient: Transient,
    metrics?: AgentMetrics,
  ) {
    super(message, metrics);
  }
}

/** The agent failure an outcome stands for: retried when the runner found it transient. */
export function agentFailure(
  message: string,
  outcome: { transient?: Transient | null; metrics?: AgentMetrics },
): AgentError {
  return outcome.transient
    ? new TransientAgentError(message, outcome.transient, outcome.metrics)
    : new AgentError(message, outcome.metrics);
}

/** One invocation of the agent: how, and which try of the streak it is. */
export interface Attempt {
  resume: boolean;
  prompt: string;
  /** The execution's attempt number (its log files are named by it). */
  attempt: number;
  /** 1 for the first try of this round, 2 for the first retry … */
  try?: number;
  /** What the failed tries before cost: added to this one's metrics. */
  carry?: AgentMetrics;
  /** Seconds left of the call's timeout for this try, when it has one. */
  timeoutLeft?: number;
  /** USD this try may spend (--max-budget-usd): the call's budget less what the failed tries cost. */
  budgetUsd?: number;
  /** A person's decision on the call the session deferred: every try hands it over, until it is taken. */
  gate?: GateDecision;
}

export interface RetryEvent {
  attempt: number;
  of: number;
  kind: Transient['kind'];
  error: string;
  delay_ms: number;
  retry_at: number;
  /** The execution's attempt counter when the retry was decided (tells a wait cut short by a crash). */
  attempts: number;
}

export interface RetryDeps {
  timing: RetryTiming;
  clock: Clock;
  /** Attempts after the first. */
  retries: number;
  /** Seconds the call may take in all (its timeout); backoff waits count. */
  timeout?: number;
  /** USD the call may spend in all its tries (its budget_usd within the run's); failed tries count. */
  budgetUsd?: number;
  record(event: RetryEvent): Promise<void>;
  /** Marks the execution running again (attempts + 1) just before the next try. */
  restart(): Promise<void>;
}

/** Runs `once`, retrying transient failures; the last one fails the call naming the error and the attempts. */
export async function withRetries(
  deps: RetryDeps,
  first: Attempt,
  once: (a: Attempt) => Promise<Settled>,
  signal: AbortSignal,
): Promise<Settled> {
  const started = deps.clock.now();
  const deadline = deps.timeout ? started + deps.timeout * 1000 : null;
  const of = deps.retries + 1;
  let how: Attempt = { ...first, try: first.try ?? 1, timeoutLeft: deps.timeout };
  for (;;) {
    try {
      return await once(how);
    } catch (e) {
      if (!(e instanceof TransientAgentError)) throw e;
      const n = how.try!;
      const what = describeTransient(e.transient);
      if (n >= of)
        throw new AgentError(of > 1 ? `${what} on all ${of} attempts; the last: ${e.message}` : e.message, e.metrics);
      const budgetLeft =
        deps.budgetUsd === undefined ? undefined : Math.round((deps.budgetUsd - (e.metrics?.costUsd ?? 0)) * 1e6) / 1e6;
      if (budgetLeft !== undefined && budgetLeft <= 0) throw new BudgetSpent(deps.budgetUsd!, e.metrics?.costUsd ?? 0);
      const delay = backoffMs(n, deps.timing);
      const now = deps.clock.now();
      if (deadline !== null && now + delay >= deadline) {
        throw new AgentError(
          `${what} on attempt ${n} of ${of}, and the call's timeout (${deps.timeout}s) ends before the next could start (in ${Math.ceil(delay / 1000)}s); the last: ${e.message}`,
          e.metrics,
        );
      }
      await deps.record({
        attempt: n,
        of,
        kind: e.transient.kind,
        error: e.transient.detail,
        delay_ms: delay,
        retry_at: now + delay,
        attempts: how.attempt,
      });
      if (signal.aborted) throw new Aborted();
      await deps.timing.sleep(delay, signal);
      await deps.restart();
      how = {
        resume: true,
        prompt: continuePrompt(e.transient, first.prompt),
        attempt: how.attempt + 1,
        try: n + 1,
        carry: e.metrics,
        budgetUsd: budgetLeft,
        gate: how.gate,
        timeoutLeft: deadline === null ? undefined : Math.max(1, Math.ceil((deadline - deps.clock.now()) / 1000)),
      };
    }
  }
}

/** What the agent is told on a retry: what cut it off, and what it was asked (it may have lost the turn). */
function continuePrompt(t: Transient, asked: string): string {
  return `Your last turn was cut off by a transient error (${describeTransient(t)}). Continue where you left off and report when done.\n\nWhat you were asked: ${asked}`;
}

/** Metrics of two tries together: cost, tokens and turns add up, the duration is the whole. */
export function addMetrics(before: AgentMetrics | undefined, now: AgentMetrics): AgentMetrics {
  if (!before) return now;
  const sum = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : a + b);
  const cost = sum(before.costUsd, now.costUsd);
  const a = before.tokens;
  const b = now.tokens;
  const tokens =
    a && b
      ? {
          input: sum(a.input, b.input),
          output: sum(a.output, b.output),
          cacheRead: sum(a.cacheRead, b.cacheRead),
          cacheWrite: sum(a.cacheWrite, b.cacheWrite),
        }
      : (a ?? b);
  return {
    costUsd: cost === null ? null : Math.round(cost * 1e6) / 1e6,
    numTurns: sum(before.numTurns, now.numTurns),
    durationMs: sum(before.durationMs, now.durationMs),
    ...(tokens ? { tokens } : {}),
  };
}
