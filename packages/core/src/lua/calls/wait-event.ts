import type { Settled } from '../../engine/outcome.js';
import type { SentEvent } from '../../store/sent-event-store.js';
import type { Execution } from '../../types.js';
import type { CallDefinition, CallWorld } from './definition.js';
import { eventArgs, eventCallArgs } from './event-options.js';

type WaitEventRequest = { type: 'wait_event'; name: string; key: string | null; timeout: number | null };

const USAGE = 'wait_event(name [, {key = K, timeout = seconds}])';

/**
 * wait_event(name [, {key, timeout}]): the run waits, durably, for an event from the outside
 * world (`shop event send`, POST /api/events, an event URL). It takes the oldest event of that
 * name (and key) sent since the run started that it has not taken yet — one sent before the wait
 * began is kept for it — recorded under the call's key, so replay returns the same event. Its
 * timeout's due time is fixed (store clock) when the call first runs, like sleep's; past it, nil.
 * The name and key are its identity (the timeout is not: changing it is no mismatch).
 */
export const waitEventCall: CallDefinition<WaitEventRequest> = {
  name: 'wait_event',
  kind: 'wait_event',
  flow: 'call',
  usage: USAGE,
  max: 2,
  parse(args) {
    const a = eventArgs(USAGE, 'timeout', args);
    return typeof a === 'string' ? a : { type: 'wait_event', name: a.name, key: a.key, timeout: a.seconds };
  },
  describe: (req) => `wait_event(${eventCallArgs(req.name, req.key)})`,
  quoted: (req) => `wait_event(${eventCallArgs(req.name, req.key)})`,
  start: (world, key, req, rec, signal) => startWait(world, key, req, rec, signal),
  poll: (world, exec) => eventCame(world, exec),
};

/** The event as the workflow sees it: `{id, name, key, data, sent_at (epoch seconds), sent_by, channel}`. */
export function eventValue(e: SentEvent): Record<string, unknown> {
  return {
    id: e.id,
    name: e.name,
    key: e.key,
    data: e.data,
    sent_at: e.sentAt / 1000,
    sent_by: e.sentBy,
    channel: e.channel,
  };
}

async function startWait(
  world: CallWorld,
  key: string,
  req: WaitEventRequest,
  rec: Execution | undefined,
  signal: AbortSignal,
): Promise<Settled> {
  const { ports, run, token } = world.ctx;
  if (rec?.status === 'waiting') return { kind: 'waiting', execution: rec, fresh: false };
  const take = { runId: run.id, callKey: key, name: req.name, key: req.key };
  const fingerprint = waitEventCall.describe(req);
  // Sent before the wait began (since the run started): taken at once, never lost.
  const early = await ports.store.takeEvent(token, take);
  if (early)
    return world.once(
      key,
      req,
      rec,
      { kind: 'wait_event', fingerprint, prompt: null },
      async () => eventValue(early),
      signal,
    );
  const now = ports.store.now();
  const recorded = (rec?.request as { due_at?: unknown } | null)?.due_at;
  const due =
    req.timeout === null ? null : typeof recorded === 'number' ? recorded : now + Math.round(req.timeout * 1000);
  const request = { ...req, due_at: due };
  if (due !== null && due <= now)
    return world.once(key, request, rec, { kind: 'wait_event', fingerprint, prompt: null }, async () => null, signal);
  const wait = {
    kind: 'event' as const,
    until: due,
    runStatus: world.ctx.statusWhenWaiting(key, true),
    event: {
      type: 'wait_started',
      key,
      actor: 'shop',
      channel: 'engine' as const,
      data: {
        kind: 'event',
        name: req.name,
        event_key: req.key,
        until: due === null ? null : new Date(due).toISOString(),
      },
    },
  };
  const execution = rec
    ? await ports.store.waitOn(token, run.id, key, wait, wait.runStatus)
    : await ports.store.startExecution(token, {
        runId: run.id,
        key,
        kind: 'wait_event',
        agent: null,
        fingerprint,
        sessionId: null,
        cwd: run.workspace,
        prompt: null,
        request,
        signalPath: null,
        waitOn: wait,
      });
  // Sent while the wait was being recorded (its sender saw no one waiting, and woke no one): taken now.
  const late = await ports.store.endEventWait(token, take, eventValue);
  if (late) return { kind: 'value', value: eventValue(late.event), delivered: late.delivered };
  return { kind: 'waiting', fresh: true, execution };
}

/** A waiting call's look: an event it can take (the take and its end in one transaction), else its timeout come (nil), else null. */
async function eventCame(world: CallWorld, exec: Execution): Promise<Settled | null> {
  const { ports, run, token } = world.ctx;
  const req = exec.request as WaitEventRequest & { due_at: number | null };
  const taken = await ports.store.endEventWait(
    token,
    { runId: run.id, callKey: exec.key, name: req.name, key: req.key },
    eventValue,
  );
  if (taken) {
    ports.notifier.notify({ type: 'woke', key: exec.key, why: 'event' });
    return { kind: 'value', value: eventValue(taken.event), delivered: taken.delivered };
  }
  const due = exec.waitUntil ?? req.due_at;
  if (due === null || !(ports.store.now() >= due)) return null;
  const event = {
    type: 'wait_timed_out',
    key: exec.key,
    actor: 'system:timer',
    channel: 'engine' as const,
    data: { kind: 'event', name: req.name, event_key: req.key, until: new Date(due).toISOString() },
  };
  const delivered = await ports.store.endWait(token, run.id, exec.key, null, event);
  if (delivered === null) return null;
  ports.notifier.notify({ type: 'woke', key: exec.key, why: 'timer' });
  return { kind: 'value', value: null, delivered };
}
