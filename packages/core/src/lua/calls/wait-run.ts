import type { Settled } from '../../engine/outcome.js';
import type { Execution } from '../../types.js';
import { badSeconds, MAX_SLEEP_SECONDS } from './sleep.js';
import { childEnded, childOf, followChild, refuse } from './child-runs.js';
import type { CallDefinition, CallWorld } from './definition.js';

type WaitRunRequest = { type: 'wait_run'; runId: number; timeout: number | null };

const USAGE = 'wait_run(run_id [, {timeout = seconds}])';

/**
 * wait_run(run_id [, {timeout = seconds}]): waits durably for a child run of this run (one its
 * start_workflow or call_workflow started) to end → {run_id, status, result, reason}, or nil
 * when the timeout passes first (a wake timer, as sleep's). A run may wait only on its own children.
 */
export const waitRunCall: CallDefinition<WaitRunRequest> = {
  name: 'wait_run',
  kind: 'wait_run',
  flow: 'call',
  usage: USAGE,
  max: 2,
  parse([id, opts]) {
    if (typeof id !== 'number' || !Number.isInteger(id) || id <= 0)
      return `${USAGE}: run_id must be a run's id (a whole number above 0); got ${typeof id === 'number' ? id : id == null ? 'nothing' : `a ${typeof id === 'object' ? 'table' : typeof id}`}`;
    if (opts == null) return { type: 'wait_run', runId: id, timeout: null };
    if (typeof opts !== 'object' || Array.isArray(opts))
      return `${USAGE}: the options must be a table like {timeout = 60}`;
    const unknown = Object.keys(opts).filter((k) => k !== 'timeout');
    if (unknown.length)
      return `${USAGE}: unknown option ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: timeout)`;
    const timeout = (opts as { timeout?: unknown }).timeout;
    if (timeout === undefined) return { type: 'wait_run', runId: id, timeout: null };
    const bad = badSeconds(timeout, `${USAGE}: timeout`);
    if (bad) return bad;
    if ((timeout as number) <= 0 || (timeout as number) > MAX_SLEEP_SECONDS)
      return `${USAGE}: timeout must be above 0 and at most ${MAX_SLEEP_SECONDS} seconds (366 days); got ${timeout}`;
    return { type: 'wait_run', runId: id, timeout: timeout as number };
  },
  describe: (req) => `wait_run(${req.runId})`,
  // The due time is recorded when the call first runs (as sleep's): another timeout on replay is no mismatch.
  fingerprint: (req) => `wait_run(${req.runId})`,
  quoted: (req) => `wait_run(${req.runId}${req.timeout === null ? '' : `, {timeout = ${req.timeout}}`})`,
  async start(world, key, req, rec, signal): Promise<Settled> {
    const { ports, run, token } = world.ctx;
    if (rec?.status === 'waiting') return follow(world, rec, false, signal);
    const child = await ports.store.getRun(req.runId);
    if (child?.parentId !== run.id) {
      const whose = child
        ? child.parentId === null
          ? 'a run a person started'
          : `a child of run ${child.parentId}`
        : 'no run';
      return refuse(
        world,
        key,
        req,
        'wait_run',
        waitRunCall.fingerprint!(req),
        `wait_run(${req.runId}): run ${req.runId} is ${whose}, not a child of run ${run.id}; a run may wait only on its own children (started by its start_workflow or call_workflow)`,
        signal,
      );
    }
    const until = req.timeout === null ? null : ports.store.now() + Math.round(req.timeout * 1000);
    const exec = await ports.store.startExecution(token, {
      runId: run.id,
      key,
      kind: 'wait_run',
      agent: null,
      fingerprint: waitRunCall.fingerprint!(req),
      sessionId: null,
      cwd: run.workspace,
      prompt: null,
      request: { run_id: req.runId, workflow: child.spec, timeout: req.timeout },
      signalPath: null,
      waitOn: {
        kind: 'run',
        runId: req.runId,
        until,
        runStatus: world.ctx.statusWhenWaiting(key, true),
        event: { type: 'wait_started', key, actor: 'shop', channel: 'engine', data: { kind: 'run' } },
      },
    });
    return follow(world, exec, true, signal);
  },
  poll: async (world, exec) =>
    (await childEnded(world, exec, await world.ctx.ports.store.getRun(childOf(exec)))) ?? timedOut(world, exec),
};

/** The child driven here if nobody drives it, until its end or the timeout; then what came first. */
async function follow(world: CallWorld, exec: Execution, fresh: boolean, signal: AbortSignal): Promise<Settled> {
  const settled = await followChild(world, exec, fresh, signal, undefined, exec.waitUntil);
  return settled.kind === 'waiting' ? ((await timedOut(world, exec)) ?? settled) : settled;
}

/** The timeout passed (the store's clock) before the run ended: the wait ends with nil, once. */
async function timedOut(world: CallWorld, exec: Execution): Promise<Settled | null> {
  const { ports, run, token } = world.ctx;
  if (exec.waitUntil === null || ports.store.now() < exec.waitUntil) return null;
  const event = {
    type: 'wait_timed_out',
    key: exec.key,
    actor: 'system:timer',
    channel: 'engine' as const,
    data: { run_id: childOf(exec) },
  };
  const delivered = await ports.store.endWait(token, run.id, exec.key, null, event);
  if (delivered === null) return null;
  ports.notifier.notify({ type: 'woke', key: exec.key, why: 'timer' });
  return { kind: 'value', value: null, delivered };
}
