import { fingerprint, type CallRequest, type PauseSpec } from '../lua/requests.js';
import type { Execution } from '../types.js';
import { AgentStep, type StepContext } from './agent-step.js';
import { findAnswer } from './check-answer.js';
import { Aborted, type Settled } from './outcome.js';

/** A call the scheduler hands to the world: everything but parallel() and stuck(). */
export type LiveRequest = Exclude<CallRequest, { type: 'parallel' }>;

/**
 * The live side of host calls: starts or picks up a call in the world, and checks a
 * waiting call for its answer. Every write is fenced by the driver's token.
 */
export class CallRunner {
  private readonly agents: AgentStep;

  constructor(private readonly ctx: StepContext) {
    this.agents = new AgentStep(ctx);
  }

  /** Starts a new call, or picks up a recorded one that is running, waiting or failed. */
  async start(key: string, req: LiveRequest, rec: Execution | undefined, signal: AbortSignal): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    // Completed but never handed to Lua (it cannot happen in a log written by this version):
    // hand it over now rather than run it again.
    if (rec?.status === 'completed') return { kind: 'value', value: rec.result, delivered: await ports.store.completeExecution(token, run.id, key, rec.result) };
    switch (req.type) {
      case 'run':
        return this.agents.call(key, req, rec, signal);
      case 'pause':
        if (rec?.status === 'waiting_human') return { kind: 'waiting', execution: rec, fresh: false };
        // Half recorded by Shop before schema 2 (two transactions): make it wait now.
        if (rec) return { kind: 'waiting', fresh: true, execution: await ports.store.markWaiting(token, run.id, key, this.pauseAsk(req.spec), this.ctx.statusWhenWaiting(key)) };
        // One transaction: the pause exists and waits, or it does not exist at all.
        return {
          kind: 'waiting',
          fresh: true,
          execution: await ports.store.startExecution(this.ctx.token, {
            runId: run.id, key, kind: 'pause', agent: '_checkpoint', fingerprint: fingerprint(req), sessionId: null,
            cwd: run.workspace, prompt: req.spec.message, request: req.spec, signalPath: null,
            waiting: { ...this.pauseAsk(req.spec), runStatus: this.ctx.statusWhenWaiting(key) },
          }),
        };
      case 'sh':
        return this.once(key, req, rec, () => ports.shell(req, run.workspace, signal), signal);
      case 'now':
        return this.once(key, req, rec, async () => ports.clock.now() / 1000, signal);
      case 'patched':
        return this.once(key, req, rec, async () => true, signal);
    }
  }

  /**
   * The answer to a waiting call, if one came: the call completes (a value for Lua), or the
   * person's words go back to the agent, which may settle or ask again.
   */
  async poll(exec: Execution, signal: AbortSignal): Promise<Settled | null> {
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
    await ports.store.appendEvent(token, run.id, { type: 'resumed', key: exec.key, actor: found.by, channel: 'engine' });
    return { kind: 'value', value: found.value, delivered };
  }

  private pauseAsk(spec: PauseSpec) {
    return { waitingFor: spec.message, awaiting: 'checkpoint', timers: this.ctx.timersFor({ kind: 'pause', request: spec }), claimTimeout: this.ctx.config().claim_timeout };
  }

  /** sh(), now(), patched(): done once, recorded, answered from the log ever after. */
  private async once(key: string, req: LiveRequest, rec: Execution | undefined, effect: () => Promise<unknown>, signal: AbortSignal): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    if (rec) await ports.store.restartExecution(token, run.id, key);
    else {
      await ports.store.startExecution(token, {
        runId: run.id, key, kind: req.type === 'patched' ? 'patch' : req.type, agent: null, fingerprint: fingerprint(req), sessionId: null,
        cwd: run.workspace, prompt: req.type === 'sh' ? (req.cmd ?? req.argv!.join(' ')) : null, request: req, signalPath: null,
      });
    }
    // A command may run code an agent wrote (npm test): a rule file it changes holds the run, its result kept.
    const files = req.type === 'sh' ? this.ctx.files.before(key) : null;
    const value = await effect();
    if (signal.aborted) throw new Aborted();
    const delivered = await ports.store.completeExecution(token, run.id, key, value);
    this.ctx.files.after(files, key, null);
    return { kind: 'value', value, delivered };
  }
}
