import type { Settled } from '../../engine/outcome.js';
import { hashText } from '../canonical-hash.js';
import {
  childEnded,
  childOf,
  followChild,
  newChild,
  Ownership,
  parseChild,
  refuse,
  type ChildSpec,
} from './child-runs.js';
import type { CallDefinition } from './definition.js';

type CallWorkflowRequest = { type: 'call_workflow' } & ChildSpec;

/**
 * call_workflow(name, prompt | {prompt = …}): starts a child run of workflows/<name>.lua and
 * waits durably for its end → {run_id, status, result, reason}. The child's row and this
 * call's are one transaction, so a replayed or taken-over parent never starts a second one;
 * a child a person stopped raises at this line.
 */
export const callWorkflowCall: CallDefinition<CallWorkflowRequest> = {
  name: 'call_workflow',
  kind: 'workflow',
  flow: 'call',
  usage: 'call_workflow(name, prompt | {prompt = …})',
  max: 2,
  parse(args) {
    const spec = parseChild('call_workflow', args);
    return typeof spec === 'string' ? spec : { type: 'call_workflow', ...spec };
  },
  describe: (req) => `call_workflow("${req.workflow}")`,
  fingerprint: (req) => `call_workflow("${req.workflow}") #${hashText(req.prompt)}`,
  quoted: (req) => `call_workflow("${req.workflow}")`,
  async start(world, key, req, rec, signal): Promise<Settled> {
    const { ports, run, token } = world.ctx;
    if (rec?.status === 'waiting') return followChild(world, rec, false, signal);
    const made = await newChild(world, 'call_workflow', req);
    if (typeof made === 'string')
      return refuse(world, key, req, 'workflow', callWorkflowCall.fingerprint!(req), made, signal);
    const runStatus = world.ctx.statusWhenWaiting(key, true);
    const exec = await ports.store.startExecution(token, {
      runId: run.id,
      key,
      kind: 'workflow',
      agent: null,
      fingerprint: callWorkflowCall.fingerprint!(req),
      sessionId: null,
      cwd: run.workspace,
      prompt: req.prompt || null,
      request: { workflow: req.workflow },
      signalPath: null,
      child: made.child,
      waitOn: {
        kind: 'run',
        until: null,
        runStatus,
        event: { type: 'wait_started', key, actor: 'shop', channel: 'engine', data: { kind: 'run' } },
      },
    });
    const child = await ports.store.getRun(childOf(exec));
    return followChild(world, exec, true, signal, child ? Ownership.adopt(ports, child) : undefined);
  },
  poll: async (world, exec) => childEnded(world, exec, await world.ctx.ports.store.getRun(childOf(exec))),
};
