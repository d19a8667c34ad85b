import type { Decision, PauseSpec } from '../../decisions/decision-spec.js';
import { PauseSpecSchema } from '../../decisions/decision-spec.js';
import type { Answer, Execution, Run } from '../../types.js';
import type { RunLook } from '../../run-status.js';

/** Decisions as pause() would record them: parsed (and normalised) by the real schema. */
export function decisions(...list: unknown[]): Decision[] {
  return PauseSpecSchema.parse({ message: 'm', decisions: list }).decisions!;
}

/** A waiting agent ask (run 7, call 2, first ask) unless overridden. */
export function agentAsk(over: Partial<Execution> = {}): Execution {
  return {
    runId: 7,
    key: '2',
    seq: 2,
    kind: 'run',
    agent: 'coder',
    fingerprint: 'run("coder")',
    status: 'waiting_human',
    delivered: null,
    sessionId: 'sess-1',
    cwd: '/w',
    prompt: 'build it',
    request: {},
    result: null,
    signalPath: '/w/.shop/signals/7.2.coder.json',
    waitingFor: 'which database?',
    awaiting: 'input',
    error: null,
    costUsd: null,
    tokens: { input: null, output: null, cacheRead: null, cacheWrite: null },
    numTurns: null,
    durationMs: null,
    pid: null,
    pidStart: null,
    attemptAt: null,
    activity: null,
    activityAt: null,
    attempts: 1,
    ask: 1,
    spawned: true,
    hold: null,
    claimTimeout: null,
    askDecisions: null,
    waitKind: 'person',
    waitUntil: null,
    claim: null,
    startedAt: 1_700_000_000_000,
    updatedAt: 1_700_000_060_000,
    finishedAt: null,
    ...over,
  };
}

/** A waiting pause() with the given spec (parsed by the real schema). */
export function pauseAsk(spec: Record<string, unknown> | string, over: Partial<Execution> = {}): Execution {
  const parsed: PauseSpec = PauseSpecSchema.parse(typeof spec === 'string' ? { message: spec } : spec);
  return agentAsk({
    kind: 'pause',
    agent: '_checkpoint',
    fingerprint: `pause("${parsed.message}")`,
    sessionId: null,
    prompt: parsed.message,
    request: parsed,
    signalPath: null,
    waitingFor: parsed.message,
    awaiting: 'checkpoint',
    ...over,
  });
}

/** A recorded answer from ann on the CLI unless overridden. */
export function answer(over: Partial<Answer> = {}): Answer {
  return {
    runId: 7,
    key: '2',
    ask: 1,
    verdict: null,
    status: null,
    message: null,
    decisions: null,
    responder: 'ann',
    channel: 'cli',
    answeredAt: 1_700_000_120_000,
    ...over,
  };
}

export function fakeRun(over: Partial<Run> = {}): Run {
  return {
    id: 7,
    spec: 'feature',
    workflowPath: '/p/workflows/feature.lua',
    prompt: 'add login',
    status: 'waiting_human',
    workspace: '/w',
    branch: null,
    reason: null,
    result: null,
    seed: 1,
    workflowHash: null,
    owner: null,
    stop: null,
    rules: null,
    held: null,
    parentId: null,
    parentKey: null,
    priority: 0,
    queueKey: null,
    concurrency: null,
    trigger: null,
    createdAt: 1_700_000_000_000,
    updatedAt: 1_700_000_060_000,
    endedAt: null,
    ...over,
  };
}

/** How a run is shown while its driver (if any) is live: its own status, never "interrupted". */
export function liveLook(run: Run): RunLook {
  return { status: run.status, goneSince: null };
}

/** A run and how it is shown live: runJson's first two arguments. */
export function shown(run: Run): [Run, RunLook] {
  return [run, liveLook(run)];
}
