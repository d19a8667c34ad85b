import { randomInt } from 'node:crypto';
import { basename, dirname, join } from 'node:path';
import { ConflictError, NotFoundError, ShopError } from '../../errors.js';
import { startingRules } from '../../engine/held-run.js';
import { Aborted, type Settled } from '../../engine/outcome.js';
import { liveOwner, ownerRecord, Ownership, storeLiveness } from '../../engine/ownership.js';
import type { NewRun } from '../../store/store.js';
import { hasEnded, type Execution, type Run } from '../../types.js';
import { canonicalHash } from '../canonical-hash.js';
import type { CallWorld } from './definition.js';
import { raised } from './raised.js';

/** How deep runs may call runs: a workflow calling itself for ever fails here, not by filling the store. */
const MAX_CHILD_DEPTH = 8;
/** The longest prompt a child run takes (characters). */
const MAX_CHILD_PROMPT = 1024 * 1024;

/** The workflow a call names and the prompt it gives; `usage` names the call in errors. */
export interface ChildSpec {
  workflow: string;
  prompt: string;
}

const NAME = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

/** call_workflow / start_workflow's arguments, or why not (raised at the call's line). */
export function parseChild(fn: string, [name, arg]: unknown[]): ChildSpec | string {
  const usage = `${fn}(name, prompt | {prompt = …})`;
  if (typeof name !== 'string' || !name) return `${usage}: name must be a workflow's name (workflows/<name>.lua)`;
  if (!NAME.test(name) || name.length > 100)
    return `${usage}: ${JSON.stringify(name.slice(0, 100))} is not a workflow's name: letters, digits, - and _ only (a file in workflows/, no path)`;
  let prompt: unknown = arg ?? '';
  if (arg !== null && typeof arg === 'object' && !Array.isArray(arg)) {
    const unknown = Object.keys(arg).filter((k) => k !== 'prompt');
    if (unknown.length)
      return `${usage}: unknown option ${unknown.map((k) => JSON.stringify(k)).join(', ')} (known: prompt)`;
    prompt = (arg as { prompt?: unknown }).prompt ?? '';
  }
  if (typeof prompt !== 'string')
    return `${usage}: the prompt must be a string; got a ${Array.isArray(prompt) ? 'table' : typeof prompt}`;
  if (prompt.length > MAX_CHILD_PROMPT)
    return `${usage}: the prompt is ${prompt.length} characters, over the bound of ${MAX_CHILD_PROMPT}; pass a file path instead`;
  return { workflow: name, prompt };
}

/**
 * The child run a call would start, or why it cannot (raised at the call's line and recorded,
 * so a replay raises it again): its workflow file beside the parent's, loadable, and the
 * chain of parents no deeper than MAX_CHILD_DEPTH.
 */
export async function newChild(
  world: CallWorld,
  fn: string,
  spec: ChildSpec,
): Promise<{ child: NewRun; token: string } | string> {
  const { ports, run } = world.ctx;
  const path = join(dirname(run.workflowPath), `${spec.workflow}.lua`);
  const shown = ports.ruleFiles?.shown(path) ?? path;
  let source: string;
  try {
    source = ports.readWorkflow(path);
  } catch (e) {
    if (e instanceof NotFoundError) return `${fn}("${spec.workflow}"): no workflow ${shown}`;
    throw e;
  }
  try {
    world.checkWorkflow(source, basename(path));
  } catch (e) {
    if (!(e instanceof ShopError)) throw e;
    return `${fn}("${spec.workflow}"): ${shown} does not load: ${e.message}`;
  }
  const chain = await ancestors(world, run);
  if (chain.length >= MAX_CHILD_DEPTH) {
    return `${fn}("${spec.workflow}"): runs may call runs at most ${MAX_CHILD_DEPTH} deep; run ${run.id} is ${chain.length} down (${[...chain.reverse(), run.id].join(' > ')})`;
  }
  const token = ports.newToken();
  return {
    token,
    child: {
      spec: spec.workflow,
      workflowPath: path,
      workflowHash: canonicalHash(source),
      prompt: spec.prompt,
      workspace: run.workspace,
      branch: null,
      seed: randomInt(2 ** 31),
      owner: ownerRecord(ports, token),
      leaseMs: ports.leaseMs,
      actor: `run ${run.id}`,
      rules: startingRules(ports, path),
    },
  };
}

/** The run's parents, nearest first (bounded: a chain is never longer than the bound allows). */
async function ancestors(world: CallWorld, run: Run): Promise<number[]> {
  const chain: number[] = [];
  for (let id = run.parentId; id !== null && chain.length <= MAX_CHILD_DEPTH;) {
    chain.push(id);
    id = (await world.ctx.ports.store.getRun(id))?.parentId ?? null;
  }
  return chain;
}

/** The child a call started or waits on, as its request records it. */
export const childOf = (exec: Execution): number => Number((exec.request as { run_id?: unknown } | null)?.run_id);

/**
 * A call waiting on a run: the run driven here when nobody else drives it (the call's own new
 * child is held already), then its end handed over — or the call goes on waiting. `deadline`
 * (wait_run's timeout, the store's clock) stops driving the child here when it passes.
 */
export async function followChild(
  world: CallWorld,
  exec: Execution,
  fresh: boolean,
  signal: AbortSignal,
  owner?: Ownership,
  deadline?: number | null,
): Promise<Settled> {
  const { ports } = world.ctx;
  const childId = childOf(exec);
  let child = await ports.store.getRun(childId);
  const timeLeft = deadline == null ? null : deadline - ports.store.now();
  if (
    child &&
    !hasEnded(child) &&
    world.ctx.driveChild &&
    (timeLeft === null || timeLeft > 0) &&
    (owner || !liveOwner(storeLiveness(ports), child))
  ) {
    const stop = timeLeft === null ? signal : AbortSignal.any([signal, AbortSignal.timeout(timeLeft)]);
    try {
      await world.ctx.driveChild(childId, stop, owner);
    } catch (e) {
      // Another driver took it just now: it drives it, and its end wakes this call.
      if (!(e instanceof ConflictError)) throw e;
    }
    if (signal.aborted) throw new Aborted();
    child = await ports.store.getRun(childId);
  } else owner?.release(false).catch(() => undefined);
  const settled = await childEnded(world, exec, child);
  return settled ?? { kind: 'waiting', execution: exec, fresh };
}

/**
 * The waited-on run has ended: the call's wait ends (once, whoever sees it) with the run's
 * table — or, for a run a person stopped, an error at the call's line. Null while it runs on,
 * and while the parent itself is being stopped (its own stop ends it, not the child's error).
 */
export async function childEnded(world: CallWorld, exec: Execution, child: Run | null): Promise<Settled | null> {
  const { ports, run, token } = world.ctx;
  if (child && !hasEnded(child)) return null;
  let value: unknown;
  if (!child) value = raised(`run ${childOf(exec)} is gone (pruned?); it cannot be waited on`);
  else if (child.status === 'stuck' && child.stop) {
    if ((await ports.store.getRun(run.id))?.stop) return null;
    value = raised(`run ${child.id} (${child.spec}) was stopped: ${child.stop.reason}`);
  } else value = { run_id: child.id, status: child.status, result: child.result, reason: child.reason };
  const data = { run_id: childOf(exec), status: child?.status ?? null };
  const delivered = await ports.store.endWait(token, run.id, exec.key, value, {
    type: 'child_ended',
    key: exec.key,
    actor: 'shop',
    channel: 'engine',
    data,
  });
  if (delivered === null) return null;
  ports.notifier.notify({ type: 'woke', key: exec.key, why: 'run' });
  return { kind: 'value', value, delivered };
}

/** Records a call that raises at its line (no child started), so a replay raises it again. */
export function refuse(
  world: CallWorld,
  key: string,
  req: { type: string },
  kind: 'workflow' | 'start_workflow' | 'wait_run',
  fingerprint: string,
  message: string,
  signal: AbortSignal,
): Promise<Settled> {
  return world.once(key, req, undefined, { kind, fingerprint, prompt: null }, async () => raised(message), signal);
}

export { Ownership };
