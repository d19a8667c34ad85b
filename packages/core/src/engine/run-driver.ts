import { basename } from 'node:path';
import { AgentError, NonDeterminismError, ShopError } from '../errors.js';
import { LuaWorkflow, type Step } from '../lua/lua-workflow.js';
import { describeIssues, fingerprint, WorkflowConfigSchema, type HostRequest, type WorkflowConfig } from '../lua/requests.js';
import { hasEnded, type AgentMetrics, type Execution, type ReplayRecord, type Run } from '../types.js';
import { AgentStep } from './agent-step.js';
import { HumanWait } from './human-wait.js';
import { recordOnce, startPause } from './record-steps.js';
import { ended, value, type CallResult, type DriveOutcome } from './outcome.js';
import type { EnginePorts } from './ports.js';
import { seededRandom } from './seeded-random.js';

const LEASE_MS = 30_000;

export interface DriveOptions {
  /** Keep the process alive while the run waits for a person, resuming in place. */
  wait: boolean;
  signal?: AbortSignal;
}

/**
 * Drives one run: replays the workflow against its execution log, then goes on live.
 * Each host call takes the next key; a recorded call must match (else non-determinism)
 * and answers from the log without touching the world.
 */
export class RunDriver {
  private calls = 0;
  private recorded = new Map<string, ReplayRecord>();
  private config: WorkflowConfig = {};
  private logs: string[] = [];
  /** Log lines earlier drives recorded; replay reproduces them first, in the same order. */
  private logsRecorded = 0;
  private readonly agentStep: AgentStep;
  private readonly waiting: HumanWait;

  constructor(private readonly ports: EnginePorts, private run: Run, private readonly opts: DriveOptions) {
    this.agentStep = new AgentStep(ports, run, () => this.config, opts.signal);
    this.waiting = new HumanWait(ports, run, this.agentStep, opts);
  }

  async drive(): Promise<DriveOutcome> {
    const { store, pid } = this.ports;
    await store.acquireLease(this.run.id, pid, this.ports.clock.now() + LEASE_MS, this.ports.isAlive);
    const heartbeat = setInterval(() => void store.renewLease(this.run.id, pid, this.ports.clock.now() + LEASE_MS), LEASE_MS / 3);
    heartbeat.unref();
    try {
      return await this.loop();
    } finally {
      clearInterval(heartbeat);
      await this.waiting.close();
      await store.releaseLease(this.run.id, pid);
    }
  }

  private async loop(): Promise<DriveOutcome> {
    for (const r of await this.ports.store.loadReplayLog(this.run.id)) this.recorded.set(r.key, r);
    this.logsRecorded = await this.ports.store.countEvents(this.run.id, 'log');
    let workflow: LuaWorkflow;
    try {
      workflow = this.load();
    } catch (e) {
      return this.fail(null, (e as Error).message, (e as ShopError).exitCode ?? 1);
    }
    let step = workflow.start(this.run.prompt);
    for (;;) {
      if (this.logs.length) await this.flushLogs();
      if (step.kind === 'done') return this.complete(step.value);
      if (step.kind === 'error') return this.fail(null, step.message, 1);
      const replayed = this.fromLog(step.request);
      if (replayed) {
        step = workflow.resume(replayed.value);
        continue;
      }
      const result = await this.fulfil(step);
      if (result.kind === 'end') return result.outcome;
      if (result.kind === 'suspend') return this.suspend(result.execution);
      step = workflow.resume(result.value);
    }
  }

  private load(): LuaWorkflow {
    const random = seededRandom(this.run.seed);
    return new LuaWorkflow(this.ports.readWorkflow(this.run.workflowPath), basename(this.run.workflowPath), {
      log: (message) => {
        // Counted, not keyed by call: lines logged after the last recorded call (then a Lua
        // error or an unknown agent failed the run) are in the log too, and a retry must not repeat them.
        if (this.logsRecorded > 0) this.logsRecorded--;
        else this.logs.push(message);
      },
      context: () => ({ run_id: this.run.id, prompt: this.run.prompt, workspace: this.run.workspace, call_index: this.calls }),
      config: (table) => {
        const parsed = WorkflowConfigSchema.safeParse(table ?? {});
        if (!parsed.success) return `config: ${describeIssues(parsed.error)} (known: ${Object.keys(WorkflowConfigSchema.shape).join(', ')})`;
        this.config = { ...this.config, ...parsed.data };
        return null;
      },
      random: random.next,
      reseed: random.reseed,
    });
  }

  /**
   * The hot path of replay, kept synchronous: the next call is recorded as completed and
   * matches, so its result comes straight from the log. Anything else goes to fulfil().
   */
  private fromLog(req: HostRequest): { value: unknown } | null {
    if (req.type === 'stuck') return null;
    const rec = this.recorded.get(String(this.calls + 1));
    if (rec?.status !== 'completed' || rec.fingerprint !== fingerprint(req)) return null;
    this.calls++;
    return { value: rec.result };
  }

  private async fulfil(step: Extract<Step, { kind: 'request' }>): Promise<CallResult> {
    const req = step.request;
    if (req.type === 'stuck') return this.stuck(req.reason);
    const key = String(++this.calls);
    const rec = this.recorded.get(key);
    const fp = fingerprint(req);
    if (rec && rec.fingerprint !== fp) {
      const err = new NonDeterminismError(key, rec.fingerprint, fp);
      // The run fails, not the recorded call: its result stays in the log, so restoring the
      // workflow replays it instead of re-running the agent.
      return { kind: 'end', outcome: await this.fail(null, err.message, err.exitCode) };
    }
    if (rec?.status === 'completed') return value(rec.result);
    try {
      // A call left running, waiting or failed is picked up from its whole record.
      const whole = rec ? ((await this.ports.store.getExecution(this.run.id, key)) ?? undefined) : undefined;
      const result = await this.fulfilLive(key, req, whole);
      return result.kind === 'suspend' ? await this.waiting.wait(result.execution) : result;
    } catch (e) {
      if (!(e instanceof ShopError)) throw e;
      return { kind: 'end', outcome: await this.fail(key, e.message, e.exitCode, e instanceof AgentError ? e.metrics : undefined) };
    }
  }

  private async fulfilLive(key: string, req: Exclude<HostRequest, { type: 'stuck' }>, rec: Execution | undefined): Promise<CallResult> {
    switch (req.type) {
      case 'run':
        return this.agentStep.call(key, req, rec);
      case 'pause':
        return startPause(this.ports, this.run, key, req, rec);
      case 'sh':
        return recordOnce(this.ports, this.run, key, req, rec, async () => this.ports.shell(req.cmd, this.run.workspace));
      case 'now':
        return recordOnce(this.ports, this.run, key, req, rec, async () => this.ports.clock.now() / 1000);
    }
  }

  private async suspend(exec: Execution): Promise<DriveOutcome> {
    if (this.opts.signal?.aborted) return this.afterAbort();
    return { status: 'waiting_human', execution: (await this.ports.store.getExecution(this.run.id, exec.key)) ?? exec };
  }

  private async afterAbort(): Promise<DriveOutcome> {
    const current = await this.ports.store.getRun(this.run.id);
    return current && hasEnded(current) ? ended(current) : { status: 'interrupted' };
  }

  private async flushLogs() {
    for (const message of this.logs.splice(0)) {
      this.ports.notifier.notify({ type: 'log', message });
      await this.ports.store.appendEvent(this.run.id, { type: 'log', actor: 'workflow', channel: 'engine', data: { message } });
    }
  }

  private async complete(result: unknown): Promise<DriveOutcome> {
    await this.ports.store.finishRun(this.run.id, 'completed', { result }, { type: 'completed', actor: 'shop', channel: 'engine' });
    return ended((await this.ports.store.getRun(this.run.id))!);
  }

  private async stuck(reason: string): Promise<CallResult> {
    await this.flushLogs();
    await this.ports.store.finishRun(this.run.id, 'stuck', { reason }, { type: 'stuck', actor: 'workflow', channel: 'engine', data: { reason } });
    return { kind: 'end', outcome: ended((await this.ports.store.getRun(this.run.id))!) };
  }

  private async fail(key: string | null, reason: string, exitCode: number, metrics?: AgentMetrics): Promise<DriveOutcome> {
    if (this.opts.signal?.aborted) return this.afterAbort();
    const { store } = this.ports;
    if (key) await store.failExecution(this.run.id, key, reason, metrics);
    else await store.finishRun(this.run.id, 'failed', { reason }, { type: 'failed', actor: 'shop', channel: 'engine', data: { reason } });
    const current = (await store.getRun(this.run.id))!;
    return current.status === 'failed' ? { status: 'failed', reason: current.reason ?? reason, exitCode } : ended(current);
  }
}
