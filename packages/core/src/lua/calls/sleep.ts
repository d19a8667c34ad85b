import type { Settled } from '../../engine/outcome.js';
import type { Execution } from '../../types.js';
import { shortTime } from '../../waits/waiting-on.js';
import type { CallDefinition, CallWorld } from './definition.js';

/** The longest wait a sleep takes: 366 days (a typo of minutes for seconds should not park a run for decades). */
export const MAX_SLEEP_SECONDS = 366 * 24 * 3600;

type SleepRequest = { type: 'sleep'; seconds: number };

/**
 * sleep(seconds): the run waits on a timer, durably — the process may exit and a worker
 * (`shop watch`) wakes it when it is due. The due time is fixed by the store's clock when
 * the call first runs and recorded with it: replay never moves it, so a changed number of
 * seconds in the workflow is no mismatch (the fingerprint leaves it out). Returns nothing.
 */
export const sleepCall: CallDefinition<SleepRequest> = {
  name: 'sleep',
  kind: 'sleep',
  flow: 'call',
  usage: 'sleep(seconds)',
  max: 1,
  parse([seconds]) {
    const bad = badSeconds(seconds, 'sleep(seconds): seconds');
    if (bad) return bad;
    if ((seconds as number) < 0) return `sleep(seconds): seconds must be 0 or more; got ${seconds}`;
    if ((seconds as number) > MAX_SLEEP_SECONDS)
      return `sleep(seconds): at most ${MAX_SLEEP_SECONDS} seconds (366 days); got ${seconds}`;
    return { type: 'sleep', seconds: seconds as number };
  },
  describe: (req) => `sleep(${req.seconds})`,
  fingerprint: () => 'sleep()',
  quoted: (req) => `sleep(${req.seconds})`,
  start: (world, key, req, rec, signal) =>
    startTimer(world, key, req, rec, (now) => now + Math.round(req.seconds * 1000), signal),
  poll: (world, exec) => timerDue(world, exec),
};

/** A number a timer can take, or why not (the message to raise at the call's line). */
export function badSeconds(value: unknown, what: string): string | null {
  if (typeof value !== 'number')
    return `${what} must be a number; got ${value === undefined || value === null ? 'nothing' : `a ${Array.isArray(value) ? 'table' : typeof value === 'object' ? 'table' : typeof value}`}`;
  if (!Number.isFinite(value)) return `${what} must be a finite number; got ${value}`;
  return null;
}

/**
 * A timer's call in the world: its due time fixed now (store clock) and recorded with the
 * call, in one transaction with its wait (a `wake` timer row); a due time already past
 * returns at once. A recorded call keeps the due time it recorded.
 */
export async function startTimer(
  world: CallWorld,
  key: string,
  req: { type: string },
  rec: Execution | undefined,
  dueFrom: (now: number) => number,
  signal: AbortSignal,
): Promise<Settled> {
  const { ports, run, token } = world.ctx;
  if (rec?.status === 'waiting') return { kind: 'waiting', execution: rec, fresh: false };
  const now = ports.store.now();
  const recorded = (rec?.request as { due_at?: unknown } | null)?.due_at;
  const due = typeof recorded === 'number' ? recorded : dueFrom(now);
  const request = { ...req, due_at: due };
  const fingerprint = rec?.fingerprint ?? `${req.type}()`;
  if (due <= now)
    return world.once(key, request, rec, { kind: 'sleep', fingerprint, prompt: null }, async () => null, signal);
  const wait = {
    kind: 'timer' as const,
    until: due,
    runStatus: world.ctx.statusWhenWaiting(key, true),
    event: {
      type: 'wait_started',
      key,
      actor: 'shop',
      channel: 'engine' as const,
      data: { kind: 'timer', until: new Date(due).toISOString() },
    },
  };
  if (rec)
    return {
      kind: 'waiting',
      fresh: true,
      execution: await ports.store.waitOn(token, run.id, key, wait, wait.runStatus),
    };
  return {
    kind: 'waiting',
    fresh: true,
    execution: await ports.store.startExecution(token, {
      runId: run.id,
      key,
      kind: 'sleep',
      agent: null,
      fingerprint,
      sessionId: null,
      cwd: run.workspace,
      prompt: `until ${shortTime(due, now)}`,
      request,
      signalPath: null,
      waitOn: wait,
    }),
  };
}

/** A waiting timer's call, if it is due by the store's clock: its wait ends (once, whoever fires it), and it returns nothing. */
export async function timerDue(world: CallWorld, exec: Execution): Promise<Settled | null> {
  const { ports, run, token } = world.ctx;
  const due = exec.waitUntil ?? Number((exec.request as { due_at?: unknown } | null)?.due_at);
  if (!(ports.store.now() >= due)) return null;
  const event = {
    type: 'timer_fired',
    key: exec.key,
    actor: 'system:timer',
    channel: 'engine' as const,
    data: { due_at: new Date(due).toISOString() },
  };
  const delivered = await ports.store.endWait(token, run.id, exec.key, null, event);
  if (delivered === null) return null;
  ports.notifier.notify({ type: 'woke', key: exec.key, why: 'timer' });
  return { kind: 'value', value: null, delivered };
}
