import type { AnyCall, CallWorld, OnceHow } from '../lua/calls/definition.js';
import { callOfKind } from '../lua/calls/registry.js';
import { checkWorkflow } from '../lua/check-workflow.js';
import type { CallRequest } from '../lua/requests.js';
import type { Execution } from '../types.js';
import { AgentStep } from './agent-step.js';
import type { StepContext } from './step-context.js';
import { findAnswer } from './check-answer.js';
import { Aborted, type Settled } from './outcome.js';

/**
 * The live side of host calls: starts or picks up a call in the world (each call's
 * definition says how), and checks a waiting call for what wakes it. Every write is fenced
 * by the driver's token.
 */
export class CallRunner implements CallWorld {
  readonly agents: AgentStep;
  readonly checkWorkflow = (source: string, chunkName: string): void => void checkWorkflow(source, chunkName);

  constructor(
    readonly ctx: StepContext,
    readonly firstUse: (agent: string) => Promise<void>,
  ) {
    this.agents = new AgentStep(ctx);
  }

  /** Starts a new call, or picks up a recorded one that is running, waiting or failed. */
  async start(key: string, def: AnyCall, req: CallRequest, recorded: boolean, signal: AbortSignal): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    await def.prepare?.(this, req);
    const rec = recorded ? ((await ports.store.getExecution(run.id, key)) ?? undefined) : undefined;
    // Completed but never handed to Lua (it cannot happen in a log written by this version):
    // hand it over now rather than run it again.
    if (rec?.status === 'completed')
      return {
        kind: 'value',
        value: rec.result,
        delivered: await ports.store.completeExecution(token, run.id, key, rec.result),
      };
    return def.start!(this, key, req, rec, signal);
  }

  /** What wakes a waiting call, if it came: the call completes, or goes on in the world (an agent given a person's words). */
  async poll(exec: Execution, signal: AbortSignal): Promise<Settled | null> {
    const def = callOfKind(exec.kind);
    return def?.poll ? def.poll(this, exec, signal) : this.answered(exec, signal);
  }

  /**
   * A person's answer to a waiting call, if one came: the call completes (a value for Lua),
   * or the person's words go back to the agent, which may settle or ask again.
   */
  async answered(exec: Execution, signal: AbortSignal): Promise<Settled | null> {
    const { ports, run, token } = this.ctx;
    // A deferred tool call's ask: the answer decides that call, in the agent's resumed session.
    const gate = await this.agents.pendingGate(exec);
    if (gate) {
      const answer = await ports.store.getAnswer(run.id, exec.key, exec.ask);
      if (!answer) return null;
      ports.notifier.notify({ type: 'resumed', key: exec.key, by: answer.responder });
      return this.agents.decideGate(exec, gate, answer, signal);
    }
    const found = await findAnswer(ports, run, exec);
    if (!found) return null;
    ports.notifier.notify({ type: 'resumed', key: exec.key, by: found.by });
    if (found.kind === 'back') return this.agents.sendBack(exec, found.prompt, signal);
    const delivered = await ports.store.completeExecution(token, run.id, exec.key, found.value);
    await ports.store.appendEvent(token, run.id, {
      type: 'resumed',
      key: exec.key,
      actor: found.by,
      channel: 'engine',
    });
    return { kind: 'value', value: found.value, delivered };
  }

  /** sh(), now(), patched(): done once, recorded, answered from the log ever after. */
  async once(
    key: string,
    req: { type: string },
    rec: Execution | undefined,
    how: OnceHow,
    effect: () => Promise<unknown>,
    signal: AbortSignal,
  ): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    if (rec) await ports.store.restartExecution(token, run.id, key);
    else {
      await ports.store.startExecution(token, {
        runId: run.id,
        key,
        kind: how.kind,
        agent: null,
        fingerprint: how.fingerprint,
        sessionId: null,
        cwd: run.workspace,
        prompt: how.prompt,
        request: req,
        signalPath: null,
      });
    }
    // A command may run code an agent wrote (npm test): a rule file it changes holds the run, its result kept.
    const files = how.watchFiles ? this.ctx.files.before(key) : null;
    const value = await effect();
    if (signal.aborted) throw new Aborted();
    const delivered = await ports.store.completeExecution(token, run.id, key, value);
    this.ctx.files.after(files, key, null);
    return { kind: 'value', value, delivered };
  }
}
