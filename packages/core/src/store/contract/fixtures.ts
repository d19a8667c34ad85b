import { afterEach, beforeEach } from 'vitest';
import type { NewExecution, NewRun, NewTimer, Store } from '../store.js';

/** What the contract needs of an adapter: a fresh, empty store on a clock the test moves. */
export interface StoreAdapter {
  name: string;
  /** A fresh, empty store whose every "now" is `clock()`. */
  open(clock: () => number): Promise<Store>;
  /** Drops what `open` made (temp files, a scratch database). */
  close?(): Promise<void>;
  /**
   * A second connection to the same data as `store` (another process, or another machine, would
   * have its own): racing callers go through several. Closed by the contract.
   */
  connect(store: Store, clock: () => number): Promise<Store>;
  /** The schema version the adapter's store is at (migrations). */
  schemaVersion(store: Store): Promise<number>;
  /**
   * Makes every later insert of an event of `type` into this store fail (a trigger, say), so
   * the contract can see an operation roll back whole; the returned function undoes it.
   */
  failEvents(store: Store, type: string): Promise<() => Promise<void>>;
}

export const T = 'token-a';
export const OTHER = 'token-b';

/** The clock every store of a test reads: the test moves it, so nothing depends on real time. */
export interface TestClock {
  t: number;
}

/** Opens a fresh store before each test of the suite, and closes it after. */
export function useStore(adapter: StoreAdapter): { store: Store; clock: TestClock } {
  const ctx = { clock: { t: 1_000_000 } } as { store: Store; clock: TestClock };
  beforeEach(async () => {
    ctx.clock.t = 1_000_000;
    ctx.store = await adapter.open(() => ctx.clock.t);
  });
  afterEach(async () => {
    await ctx.store.close();
    await adapter.close?.();
  });
  return ctx;
}

/** A lease that never runs out within a test (ms). */
export const LONG = 1_000_000_000_000;
export const owner = (token = T) => ({ token, host: 'h', pid: 1, pidStart: '1' });
export const newRun = (over: Partial<NewRun> = {}): NewRun => ({
  spec: 'feature',
  workflowPath: '/p/workflows/feature.lua',
  workflowHash: 'abc',
  prompt: 'add login',
  workspace: '/p',
  branch: null,
  seed: 9,
  owner: owner(),
  leaseMs: LONG,
  actor: 'ann',
  ...over,
});
export const exec = (runId: number, key: string, over: Partial<NewExecution> = {}): NewExecution => ({
  runId,
  key,
  kind: 'run',
  agent: 'coder',
  fingerprint: `run("coder") ${key}`,
  sessionId: `s-${key}`,
  cwd: '/p',
  prompt: 'go',
  request: {},
  signalPath: null,
  ...over,
});
export const pause = (runId: number, key: string) =>
  exec(runId, key, {
    kind: 'pause',
    agent: '_checkpoint',
    sessionId: null,
    waiting: { waitingFor: 'Deploy?', awaiting: 'checkpoint', runStatus: 'waiting_human' },
  });
export const answerBy = (runId: number, key: string, status: string, responder = 'ann', ask = 1) => ({
  ask,
  verdict: null,
  decisions: null,
  runId,
  key,
  status,
  message: null,
  responder,
  channel: 'cli' as const,
});
export const ended = (status: 'completed' | 'stuck' | 'failed' = 'completed', reason?: string) => ({
  status,
  reason,
  event: { type: status, actor: 'shop', channel: 'engine' as const },
});
export const eventTypes = async (store: Store, id: number) => (await store.listEvents(id)).map((e) => e.type);

/** A run whose call 1 (an agent, session s-1) waits for a person on its first ask. */
export async function waitingRun(store: Store, timers: NewTimer[] = []) {
  const run = await store.createRun(newRun());
  await store.startExecution(T, exec(run.id, '1'));
  await store.markWaiting(
    T,
    run.id,
    '1',
    { waitingFor: 'Which database?', awaiting: 'input', timers },
    'waiting_human',
  );
  return run.id;
}
