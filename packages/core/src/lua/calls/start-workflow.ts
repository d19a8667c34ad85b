import type { Settled } from '../../engine/outcome.js';
import { hashText } from '../canonical-hash.js';
import { childOf, newChild, Ownership, parseChild, refuse, type ChildSpec } from './child-runs.js';
import type { CallDefinition } from './definition.js';

type StartWorkflowRequest = { type: 'start_workflow' } & ChildSpec;

/**
 * start_workflow(name, prompt | {prompt = …}): starts a child run as call_workflow does and
 * returns {run_id} at once. The child is left to whoever drives it first: a worker, or this
 * run's wait_run; its row and this call's are one transaction, as call_workflow's.
 */
export const startWorkflowCall: CallDefinition<StartWorkflowRequest> = {
  name: 'start_workflow',
  kind: 'start_workflow',
  flow: 'call',
  usage: 'start_workflow(name, prompt | {prompt = …})',
  max: 2,
  parse(args) {
    const spec = parseChild('start_workflow', args);
    return typeof spec === 'string' ? spec : { type: 'start_workflow', ...spec };
  },
  describe: (req) => `start_workflow("${req.workflow}")`,
  fingerprint: (req) => `start_workflow("${req.workflow}") #${hashText(req.prompt)}`,
  quoted: (req) => `start_workflow("${req.workflow}")`,
  async start(world, key, req, rec, signal): Promise<Settled> {
    const { ports, run, token } = world.ctx;
    // Recorded with its child but not completed (the process ended between): the same child, handed over now.
    if (rec)
      return {
        kind: 'value',
        value: { run_id: childOf(rec) },
        delivered: await ports.store.completeExecution(token, run.id, key, { run_id: childOf(rec) }),
      };
    const made = await newChild(world, 'start_workflow', req);
    if (typeof made === 'string')
      return refuse(world, key, req, 'start_workflow', startWorkflowCall.fingerprint!(req), made, signal);
    const exec = await ports.store.startExecution(token, {
      runId: run.id,
      key,
      kind: 'start_workflow',
      agent: null,
      fingerprint: startWorkflowCall.fingerprint!(req),
      sessionId: null,
      cwd: run.workspace,
      prompt: req.prompt || null,
      request: { workflow: req.workflow },
      signalPath: null,
      child: made.child,
    });
    const childId = childOf(exec);
    // Nobody drives it yet: let it go at once, so a worker (or wait_run here) takes it up.
    const child = await ports.store.getRun(childId);
    if (child) await Ownership.adopt(ports, child).release(false);
    const value = { run_id: childId };
    return { kind: 'value', value, delivered: await ports.store.completeExecution(token, run.id, key, value) };
  },
};
