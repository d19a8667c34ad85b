import { PauseSpecSchema, type PauseSpec } from '../../decisions/decision-spec.js';
import { capText } from '../../text.js';
import { canonicalHash } from '../canonical-hash.js';
import { describeIssues } from '../issues.js';
import { clip, type CallDefinition, type CallWorld } from './definition.js';

type PauseRequest = { type: 'pause'; spec: PauseSpec };

const quote = (s: string) => JSON.stringify(capText(s, 80));

/** pause(message | spec): the workflow waits for a person (the built-in agent _checkpoint). */
export const pauseCall: CallDefinition<PauseRequest> = {
  name: 'pause',
  kind: 'pause',
  flow: 'call',
  usage: 'pause(message | spec)',
  max: 1,
  parse([arg]) {
    const spec = typeof arg === 'string' ? { message: arg } : arg;
    const parsed = PauseSpecSchema.safeParse(spec);
    if (!parsed.success) return `pause(message | spec): ${describeIssues(parsed.error)}`;
    return { type: 'pause', spec: parsed.data };
  },
  describe: (req) => `pause("${clip(req.spec.message)}")`,
  fingerprint: (req) => `pause("${clip(req.spec.message)}") #${canonicalHash(req.spec)}`,
  legacyFingerprint: (req) => `pause("${req.spec.message}")`,
  quoted: (req) => `pause(${quote(req.spec.message)})`,
  difference(rec, req) {
    if (rec.kind !== 'pause' || rec.prompt !== req.spec.message) return null;
    const was = rec.fingerprint.split(' #')[0];
    const spec = (s: unknown) => capText(JSON.stringify((s as { decisions?: unknown } | null)?.decisions ?? []), 160);
    return [`${was} with decisions ${spec(rec.request)}`, `${was} with decisions ${spec(req.spec)}`];
  },
  async start(world, key, req, rec) {
    const { ctx } = world;
    const { ports, run, token } = ctx;
    if (rec?.status === 'waiting_human') return { kind: 'waiting', execution: rec, fresh: false };
    // Half recorded by Shop before schema 2 (two transactions): make it wait now.
    if (rec)
      return {
        kind: 'waiting',
        fresh: true,
        execution: await ports.store.markWaiting(
          token,
          run.id,
          key,
          pauseAsk(world, req.spec),
          ctx.statusWhenWaiting(key),
        ),
      };
    // One transaction: the pause exists and waits, or it does not exist at all.
    return {
      kind: 'waiting',
      fresh: true,
      execution: await ports.store.startExecution(token, {
        runId: run.id,
        key,
        kind: 'pause',
        agent: '_checkpoint',
        fingerprint: pauseCall.fingerprint!(req),
        sessionId: null,
        cwd: run.workspace,
        prompt: req.spec.message,
        request: req.spec,
        signalPath: null,
        waiting: { ...pauseAsk(world, req.spec), runStatus: ctx.statusWhenWaiting(key) },
      }),
    };
  },
  poll: (world, exec, signal) => world.answered(exec, signal),
};

function pauseAsk({ ctx }: CallWorld, spec: PauseSpec) {
  return {
    waitingFor: spec.message,
    awaiting: 'checkpoint',
    timers: ctx.timersFor({ kind: 'pause', request: spec }),
    claimTimeout: ctx.config().claim_timeout,
  };
}
