import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentDef } from '../agents/agent-def.js';
import { AgentError } from '../errors.js';
import type { RunOptions, WorkflowConfig } from '../lua/requests.js';
import { fingerprint } from '../lua/requests.js';
import { promiseSignal, readSignal, signalPath, type Signal } from '../signals/signal.js';
import type { AgentMetrics, Execution, Run } from '../types.js';
import { agentAnswer } from './check-answer.js';
import { value, type CallResult } from './outcome.js';
import type { EnginePorts } from './ports.js';

/** Claude Code's -p needs a prompt; a workflow that gives none means "do your job". */
const DEFAULT_PROMPT = 'Carry out the task described in your instructions.';

type RunRequest = { type: 'run'; agent: string; prompt: string | null; opts: RunOptions };

/**
 * run(agent): start or re-invoke the agent, read its signal, complete or wait. A failure
 * is thrown as AgentError; the driver records it (unless the run was stopped meanwhile).
 */
export class AgentStep {
  constructor(
    private readonly ports: EnginePorts,
    private readonly run: Run,
    private readonly config: () => WorkflowConfig,
    private readonly abort?: AbortSignal,
  ) {}

  async call(key: string, req: RunRequest, rec: Execution | undefined): Promise<CallResult> {
    const agent = this.ports.loadAgent(req.agent);
    if (rec?.status === 'waiting_human') return { kind: 'suspend', execution: rec };
    if (!rec) {
      const exec = await this.ports.store.startExecution({
        runId: this.run.id, key, kind: 'run', agent: req.agent, fingerprint: fingerprint(req),
        sessionId: this.ports.newSessionId(), cwd: this.run.workspace, prompt: req.prompt || this.run.prompt || DEFAULT_PROMPT,
        request: req.opts, signalPath: signalPath(this.ports.paths.signalsDir, this.run.id, key, req.agent),
      });
      return this.invoke(exec, agent, req.opts, { resume: false, prompt: exec.prompt!, attempt: 1 });
    }
    // Crashed mid-call (running) or failed before: a signal on disk means the agent finished.
    if (rec.pid) await this.ports.killOrphan(rec.pid);
    const onDisk = rec.status === 'running' && rec.signalPath ? readSignal(rec.signalPath) : { kind: 'none' as const };
    if (onDisk.kind === 'ok') return this.settle(rec, agent, req.opts, onDisk.signal, undefined);
    if (rec.signalPath) rmSync(rec.signalPath, { force: true });
    await this.ports.store.restartExecution(this.run.id, key);
    return this.invoke(rec, agent, req.opts, { resume: true, prompt: await this.restartPrompt(rec), attempt: rec.attempts + 1 });
  }

  /**
   * After a verdict that goes back to the agent: resume its own session with the person's
   * words and settle on its new signal (which may ask again).
   */
  async sendBack(exec: Execution, prompt: string): Promise<CallResult> {
    const agent = this.ports.loadAgent(exec.agent!);
    // The old NEEDS_HUMAN must not be read as the answer to this round; removed before the
    // execution is marked running, so a crash in between replays this same step.
    if (exec.signalPath) rmSync(exec.signalPath, { force: true });
    await this.ports.store.restartExecution(this.run.id, exec.key);
    await this.ports.store.appendEvent(this.run.id, { type: 'sent_back', key: exec.key, actor: 'shop', channel: 'engine', data: { prompt } });
    return this.invoke(exec, agent, (exec.request ?? {}) as RunOptions, { resume: true, prompt, attempt: exec.attempts + 1 });
  }

  /** Re-invoking after a crash: repeat the person's words if the agent was working on them. */
  private async restartPrompt(rec: Execution): Promise<string> {
    const answer = rec.ask > 0 ? await this.ports.store.getAnswer(this.run.id, rec.key, rec.ask) : null;
    const back = answer ? agentAnswer(rec, answer) : null;
    if (back?.kind === 'back') return back.prompt;
    return `You were interrupted before reporting. Continue the task and report when done.\n\nThe task: ${rec.prompt}`;
  }

  private async invoke(exec: Execution, agent: AgentDef, opts: RunOptions, how: { resume: boolean; prompt: string; attempt: number }): Promise<CallResult> {
    const { ports } = this;
    const { resume, prompt } = how;
    const logDir = join(ports.paths.runsDir, String(this.run.id));
    mkdirSync(logDir, { recursive: true });
    const base = join(logDir, `${exec.key.replaceAll('/', '-')}.${agent.name}.${how.attempt}`);
    ports.notifier.notify({ type: 'agent_started', key: exec.key, agent: agent.name, sessionId: exec.sessionId!, resumed: resume });
    const outcome = await ports.runner.invoke({
      agent, prompt, sessionId: exec.sessionId!, resume, cwd: exec.cwd ?? this.run.workspace,
      env: agentEnv(this.run, exec, agent, ports.paths.binDir),
      model: opts.model, timeout: opts.timeout ?? agent.timeout,
      stdoutFile: `${base}.stdout.log`, stderrFile: `${base}.stderr.log`,
      onSpawn: (pid) => void ports.store.setExecutionPid(this.run.id, exec.key, pid),
      signal: this.abort,
    });
    if (this.abort?.aborted) throw new AgentError('interrupted');
    if (outcome.error) throw new AgentError(outcome.error, outcome.metrics);
    const read = readSignal(exec.signalPath!);
    if (read.kind === 'invalid') throw new AgentError(`agent ${agent.name} wrote an invalid signal ${exec.signalPath}: ${read.problem}`, outcome.metrics);
    const signal = read.kind === 'ok' ? read.signal : promiseSignal(outcome.output);
    if (!signal) {
      const why = outcome.exitCode ? `exited with code ${outcome.exitCode}` : 'ended';
      const said = lastLine(`${base}.stderr.log`);
      throw new AgentError(`agent ${agent.name} ${why} without a signal${said ? `: ${said}` : ''} (logs: ${base}.stderr.log)`, outcome.metrics);
    }
    return this.settle(exec, agent, opts, signal, outcome.metrics);
  }

  /** Turns a final signal into the call's result: wait for a person, return, or fail. */
  private async settle(exec: Execution, agent: AgentDef, opts: RunOptions, signal: Signal, metrics: AgentMetrics | undefined): Promise<CallResult> {
    const { store, notifier } = this.ports;
    const text = signal.summary ?? signal.reason ?? null;
    notifier.notify({ type: 'agent_finished', key: exec.key, agent: agent.name, status: signal.status, text });
    const humanAllowed = opts.human !== false && agent.human !== false && this.config().human_escalation !== false;
    if (signal.status === 'NEEDS_HUMAN' && humanAllowed) {
      const awaiting = signal.awaiting ?? 'input';
      await store.markWaiting(this.run.id, exec.key, signal.reason ?? signal.summary ?? 'the agent needs a person', awaiting, metrics);
      return { kind: 'suspend', execution: (await store.getExecution(this.run.id, exec.key))! };
    }
    if (opts.statuses && signal.status !== 'NEEDS_HUMAN' && !opts.statuses.includes(signal.status)) {
      throw new AgentError(`agent ${agent.name} reported ${signal.status}; the workflow allows ${opts.statuses.join(', ')}`, metrics);
    }
    const result = { ...signal, session_id: exec.sessionId };
    await store.completeExecution(this.run.id, exec.key, result, metrics);
    return value(result);
  }
}

/** The last non-empty line an agent wrote to stderr, for the one-line failure message. */
function lastLine(file: string): string | null {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const line = text.trim().split('\n').pop()?.trim();
  return line ? (line.length > 200 ? `${line.slice(0, 197)}…` : line) : null;
}

function agentEnv(run: Run, exec: Execution, agent: AgentDef, binDir: string | null): Record<string, string> {
  const env: Record<string, string> = {
    SHOP_RUN_ID: String(run.id),
    SHOP_CALL: exec.key,
    SHOP_AGENT: agent.name,
    SHOP_SIGNAL_FILE: exec.signalPath!,
    SHOP_SESSION_ID: exec.sessionId!,
  };
  if (binDir) env.PATH = `${binDir}:${process.env.PATH ?? ''}`;
  return env;
}
