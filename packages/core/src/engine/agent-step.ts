import { mkdirSync, rmSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import type { AgentDef } from '../agents/agent-def.js';
import { dialectOf } from '../agents/dialects/dialect-of.js';
import { asksPerson } from '../agents/dialects/claude.js';
import type { ShopMcpCommand } from '../agents/shop-mcp.js';
import { changeOf, describeDeferred, type DeferredTool, type GateDecision } from '../agents/gates.js';
import { boundedInput, choiceDecision, gateDecision, questionDecisions } from './gate-decision.js';
import { AgentError, BudgetSpent } from '../errors.js';
import type { RunOptions, RunRequest } from '../lua/requests.js';
import { fingerprint } from '../lua/requests.js';
import { readAgentFile, readTail } from '../signals/agent-file.js';
import { checkSignal, promiseSignal, signalPath, type Signal } from '../signals/signal.js';
import { readReport } from '../signals/read-report.js';
import { keepSession, restoreSession, type SessionRef } from './session-keeper.js';
import { capText } from '../text.js';
import type { AgentMetrics, Answer, Execution, Run, TokenCounts } from '../types.js';
import { sinceBefore } from '../agents/reported-usage.js';
import { ActivityRecorder } from './activity-recorder.js';
import { addMetrics, agentFailure, DEFAULT_RETRIES, withRetries, type Attempt } from './agent-retry.js';
import { interruptedRetry, recordRetry, retryTiming } from './agent-retry-records.js';
import { freeSession, type FreedSession } from './session-takeover.js';
import { agentAnswer } from './check-answer.js';
import { Aborted, type Settled } from './outcome.js';
import type { EnginePorts } from './ports.js';
import type { StepContext } from './step-context.js';

/** Claude Code's -p needs a prompt; a workflow that gives none means "do your job". */
const DEFAULT_PROMPT = 'Carry out the task described in your instructions.';

/**
 * run(agent): start or re-invoke the agent, read its signal, complete or wait. A failure
 * is thrown as AgentError (the driver fails the run); an abort as Aborted.
 */
export class AgentStep {
  /** Log folders made by this driver (one mkdir per run, not per step). */
  private readonly logDirs = new Set<string>();

  constructor(private readonly ctx: StepContext) {}

  async call(key: string, req: RunRequest, rec: Execution | undefined, signal: AbortSignal): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    // A recorded ask is answered from the store: the agent's definition is not needed for it.
    if (rec?.status === 'waiting_human') return { kind: 'waiting', execution: rec, fresh: false };
    let session: FreedSession = { staleHold: null, started: false };
    if (rec) {
      // Crashed mid-call (running) or failed before: whatever the old driver left on the session
      // goes first, and is waited for (one process per session), then a signal on disk means the
      // agent finished — its result, whatever the budget says now.
      session = await freeSession(ports, run.id, rec, rec.status === 'running' || rec.pid !== null);
      // On disk here, or recorded in the store by shop report (the agent ran on another machine).
      const onDisk =
        rec.status === 'running' && rec.signalPath ? await readReport(ports.store, rec) : { kind: 'none' as const };
      if (onDisk.kind === 'ok') return this.settle(rec, req.opts, onDisk.signal, undefined);
    }
    const opts = { ...req.opts, budget_usd: await this.budgetFor(req.opts) };
    if (!rec) {
      const agent = ports.loadAgent(req.agent);
      const exec = await ports.store.startExecution(token, {
        runId: run.id,
        key,
        kind: 'run',
        agent: req.agent,
        fingerprint: fingerprint(req),
        // Named by Shop up front, or by the agent's CLI once it starts (Codex): recorded then.
        sessionId: dialectOf(agent).names === 'shop' ? ports.newSessionId() : null,
        cwd: run.workspace,
        prompt: req.prompt || run.prompt || DEFAULT_PROMPT,
        request: req.opts,
        signalPath: signalPath(ports.paths.signalsDir, run.id, key, req.agent),
      });
      return this.invoke(exec, agent, opts, { resume: false, prompt: exec.prompt!, attempt: 1 }, signal);
    }
    const agent = ports.loadAgent(req.agent);
    const retry = await interruptedRetry(ports, run.id, rec, signal);
    const again = await this.restart(rec, session.staleHold);
    // An agent that never started (or whose CLI never named its session) has no session to resume: it starts now, on its own prompt.
    const resumable = session.started && rec.sessionId !== null;
    // Interrupted while handing a person's decision to a deferred tool call: handed over again.
    const gate = resumable ? await this.decidedGate(rec) : null;
    const how = gate
      ? { resume: true, prompt: '', gate }
      : resumable
        ? { resume: true, prompt: await this.restartPrompt(rec) }
        : { resume: false, prompt: rec.prompt ?? DEFAULT_PROMPT };
    return this.invoke(again, agent, opts, { ...how, attempt: rec.attempts + 1, try: retry?.try }, signal);
  }

  /**
   * What the next invocation may spend: the call's budget_usd within what is left of the
   * run's. A run past its budget starts no other agent (BudgetSpent: it ends stuck).
   */
  private async budgetFor(opts: RunOptions): Promise<number | undefined> {
    const runBudget = this.ctx.config().budget_usd;
    if (runBudget === undefined) return opts.budget_usd;
    const spent = await this.ctx.ports.store.runCost(this.ctx.run.id);
    if (spent >= runBudget) throw new BudgetSpent(runBudget, spent);
    return Math.min(opts.budget_usd ?? Infinity, Math.round((runBudget - spent) * 1e6) / 1e6);
  }

  /**
   * After a verdict that goes back to the agent: resume its own session with the person's
   * words and settle on its new signal (which may ask again).
   */
  async sendBack(exec: Execution, prompt: string, signal: AbortSignal): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    const agent = ports.loadAgent(exec.agent!);
    // A shop continue that died may have left its `claude --resume` behind: it goes first.
    const { staleHold } = await freeSession(
      ports,
      run.id,
      (await ports.store.getExecution(run.id, exec.key)) ?? exec,
      true,
    );
    const again = await this.restart(exec, staleHold);
    await ports.store.appendEvent(token, run.id, {
      type: 'sent_back',
      key: exec.key,
      actor: 'shop',
      channel: 'engine',
      data: { prompt: capText(prompt, 2000) },
    });
    const opts = (exec.request ?? {}) as RunOptions;
    return this.invoke(
      again,
      agent,
      { ...opts, budget_usd: await this.budgetFor(opts) },
      { resume: true, prompt, attempt: exec.attempts + 1 },
      signal,
    );
  }

  /**
   * Marks a call running again under a new signal path (a fresh nonce: whoever saw the old
   * file's name cannot write this round's). The old file goes first — an old NEEDS_HUMAN must
   * not be read as this round's report — so a crash in between replays this same step.
   */
  private async restart(exec: Execution, staleHold: string | null): Promise<Execution> {
    const { ports, run, token } = this.ctx;
    if (exec.signalPath) rmSync(exec.signalPath, { force: true });
    const fresh = signalPath(ports.paths.signalsDir, run.id, exec.key, exec.agent!);
    await ports.store.restartExecution(token, run.id, exec.key, { signalPath: fresh, staleHold });
    return { ...exec, signalPath: fresh };
  }

  /** Re-invoking after a crash: repeat the person's words if the agent was working on them. */
  private async restartPrompt(rec: Execution): Promise<string> {
    const answer = rec.ask > 0 ? await this.ctx.ports.store.getAnswer(this.ctx.run.id, rec.key, rec.ask) : null;
    const back = answer ? agentAnswer(rec, answer) : null;
    if (back?.kind === 'back') return back.prompt;
    return `You were interrupted before reporting. Continue the task and report when done.\n\nThe task: ${rec.prompt}`;
  }

  /** One invocation, and more on the same session while it fails transiently (agent-retry.ts). */
  private invoke(
    exec: Execution,
    agent: AgentDef,
    opts: RunOptions,
    how: Attempt,
    signal: AbortSignal,
  ): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    return withRetries(
      {
        timing: retryTiming(ports),
        clock: ports.clock,
        retries: opts.retries ?? this.ctx.config().retries ?? DEFAULT_RETRIES,
        timeout: opts.timeout ?? agent.timeout,
        budgetUsd: opts.budget_usd,
        record: recordRetry(ports, token, run.id, exec.key, agent.name),
        restart: () => ports.store.restartExecution(token, run.id, exec.key),
      },
      how,
      (h) => this.invokeOnce(exec, agent, opts, h, signal),
      signal,
    );
  }

  private async invokeOnce(
    exec: Execution,
    def: AgentDef,
    opts: RunOptions,
    how: Attempt,
    signal: AbortSignal,
  ): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    const agent = this.gated(def);
    if (signal.aborted) throw new Aborted();
    const logDir = join(ports.paths.runsDir, String(run.id));
    if (!this.logDirs.has(logDir)) mkdirSync(logDir, { recursive: true, mode: 0o700 });
    this.logDirs.add(logDir);
    const base = join(logDir, `${exec.key.replaceAll('/', '-')}.${agent.name}.${how.attempt}`);
    // Claude Code's session moves with the run: put in place before a resume, kept after each
    // invocation (in the store). Other CLIs' sessions stay on the machine that ran them.
    const dialect = dialectOf(agent);
    const session: SessionRef | null =
      dialect.movesSessions && exec.sessionId
        ? { runId: run.id, key: exec.key, sessionId: exec.sessionId, cwd: exec.cwd ?? run.workspace }
        : null;
    if (session && how.resume)
      await restoreSession(ports, token, session, `resume the run there: shop resume ${run.id}`);
    const resume = how.resume && exec.sessionId !== null;
    // Codex reports its thread's running total: what the call recorded before (and earlier tries carry) comes off.
    const spentBefore = dialect.tokensPerSession && resume ? await this.tokensBefore(exec, how) : null;
    ports.notifier.notify({
      type: 'agent_started',
      key: exec.key,
      agent: agent.name,
      sessionId: exec.sessionId,
      resumed: resume,
    });
    let recording: Promise<unknown> = Promise.resolve();
    const progress = new ActivityRecorder(ports, run.id, token, exec, agent.name);
    // A pid write refused (the run was taken over) ends the agent at once, not when it is done.
    const own = new AbortController();
    const forward = () => own.abort();
    signal.addEventListener('abort', forward, { once: true });
    const files = this.ctx.files.before(exec.key);
    const outcome = await ports.runner
      .invoke({
        agent,
        prompt: how.prompt,
        sessionId: exec.sessionId,
        resume,
        cwd: exec.cwd ?? run.workspace,
        env: agentEnv(run, exec, agent, ports.paths, ports.traceparent?.(run, exec.key, how.attempt)),
        mcp: shopMcp(ports.paths),
        gate: how.gate,
        model: opts.model,
        timeout: how.timeoutLeft ?? opts.timeout ?? agent.timeout,
        budgetUsd: how.budgetUsd ?? opts.budget_usd,
        stdoutFile: `${base}.stdout.log`,
        stderrFile: `${base}.stderr.log`,
        onSpawn: (pid, containment) => {
          // The trail says how the agent's processes are held together (a PID namespace, or only its group and marker).
          const started = containment
            ? {
                type: 'agent_started',
                key: exec.key,
                actor: 'shop',
                channel: 'engine' as const,
                data: { pid, containment },
              }
            : null;
          recording = ports.store
            .setExecutionPid(token, run.id, exec.key, pid, ports.processStart(pid), started ?? undefined)
            .then(
              () => null,
              (e: unknown) => (own.abort(), e),
            );
        },
        // The session its CLI named (Codex's thread): recorded at once, so a crash resumes it.
        onSession: (id) => {
          exec.sessionId = id;
          const before = recording;
          recording = before.then(
            (e) =>
              e ??
              ports.store.setSessionId(token, run.id, exec.key, id).then(
                () => null,
                (err: unknown) => (own.abort(), err),
              ),
          );
        },
        onActivity: (a) => progress.seen(a.text, a.numTurns),
        signal: own.signal,
      })
      .finally(() => signal.removeEventListener('abort', forward));
    await progress.stop();
    if (spentBefore && outcome.metrics.tokens)
      outcome.metrics.tokens = sinceBefore(outcome.metrics.tokens, spentBefore);
    outcome.metrics = addMetrics(how.carry, outcome.metrics);
    // A pid write refused (the run was taken over) surfaces here, before anything else is written.
    const refused = await recording;
    if (refused) throw refused;
    if (signal.aborted) throw new Aborted();
    if (session) await keepSession(ports, token, session);
    // Before its outcome is used: a rule file changed while the agent ran holds the run (its report stays for a resume).
    this.ctx.files.after(files, exec.key, agent.name);
    if (outcome.error) throw agentFailure(capText(outcome.error, 600), outcome);
    // A gated tool call (or AskUserQuestion) deferred to a person: the session ended there, to resume once decided.
    if (outcome.deferred) return this.deferToPerson(exec, outcome.deferred, outcome.metrics, agent, opts);
    const read = outcome.report === undefined ? await readReport(ports.store, exec) : checkSignal(outcome.report);
    if (read.kind === 'invalid')
      throw new AgentError(
        `agent ${agent.name} wrote an invalid signal ${outcome.report === undefined ? exec.signalPath : '(reported in-process)'}: ${capText(read.problem)}`,
        outcome.metrics,
      );
    const reported = read.kind === 'ok' ? read.signal : promiseSignal(outcome.output);
    if (!reported) {
      const why = outcome.exitCode ? `exited with code ${outcome.exitCode}` : 'ended';
      // What the agent said is in its output (stdout.log); stderr.log only holds errors.
      const said = lastLine(`${base}.stderr.log`);
      const text = outcome.output.trim() ? capText(outcome.output.trim().split('\n').pop()!.trim(), 200) : null;
      // Which CLI failed, when it is not Claude Code (whose failures Shop has always named as the agent's).
      const cli = dialect.cli === 'codex' || dialect.cli === 'gemini' ? ` (${dialect.label})` : '';
      throw agentFailure(
        `agent ${agent.name}${cli} ${why} without a signal${text ? `; its last words: ${text}` : ''}${said ? `; stderr: ${said}` : ''}` +
          ` (its output: ${base}.stdout.log${said ? `, errors: ${base}.stderr.log` : ''})`,
        outcome,
      );
    }
    return this.settle(exec, opts, reported, outcome.metrics, agent);
  }

  /** The tokens a call's session had used before this invocation: those recorded, and those earlier tries carry. */
  private async tokensBefore(exec: Execution, how: Attempt): Promise<TokenCounts | null> {
    const stored = (await this.ctx.ports.store.getExecution(this.ctx.run.id, exec.key))?.tokens;
    const none = { costUsd: null, numTurns: null, durationMs: null };
    return addMetrics(how.carry, { ...none, ...(stored ? { tokens: stored } : {}) }).tokens ?? null;
  }

  /**
   * A tool call the agent's session deferred (its gates:, AskUserQuestion): recorded on the trail
   * (which ask it is), then the call waits for a person like any ask — timers, notices, claims,
   * policies, answer links. The answer decides the call itself (decideGate).
   */
  private async deferToPerson(
    exec: Execution,
    tool: DeferredTool,
    metrics: AgentMetrics,
    agent: AgentDef,
    opts: RunOptions,
  ): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    if (!this.humanAllowed(exec, opts, agent))
      throw new AgentError(
        `agent ${agent.name} wants to run ${describeDeferred(tool)}, a call that waits for a person, but this call may not ask one (human = false)`,
        metrics,
      );
    const question = tool.name === 'AskUserQuestion';
    await ports.store.appendEvent(token, run.id, {
      type: 'tool_deferred',
      key: exec.key,
      actor: agent.name,
      channel: 'agent',
      data: { ask: exec.ask + 1, tool_use_id: tool.id, tool: tool.name, input: boundedInput(tool.input) },
    });
    // A file change shows what it changes (a Write against the file as it is in the workspace now).
    const change = question ? null : changeOf(tool, currentFile(tool, exec.cwd ?? run.workspace));
    const waitingFor = question
      ? describeDeferred(tool)
      : `${agent.name} wants to run: ${describeDeferred(tool)}${change ? `\n${change}` : ''}`;
    const ask = {
      waitingFor,
      awaiting: question ? 'input' : 'approval',
      metrics,
      timers: this.ctx.timersFor(exec),
      claimTimeout: this.ctx.config().claim_timeout,
      ...(question ? { decisions: questionDecisions(tool.input) } : {}),
    };
    const execution = await ports.store.markWaiting(token, run.id, exec.key, ask, this.ctx.statusWhenWaiting(exec.key));
    // Said once the ask exists: a person who acts on the line (or a driver killed right after it) finds it.
    ports.notifier.notify({
      type: 'agent_finished',
      key: exec.key,
      agent: agent.name,
      status: 'NEEDS_HUMAN',
      text: waitingFor,
    });
    return { kind: 'waiting', execution, fresh: true };
  }

  /**
   * The agent with the run's gates too (config{gates}): they apply to Claude Code agents; a
   * Codex or Gemini agent cannot hold a tool call for a person, so its step fails rather than
   * run ungated.
   */
  private gated(def: AgentDef): AgentDef {
    const extra = this.ctx.config().gates ?? [];
    if (!extra.length) return def;
    const cli = dialectOf(def).cli;
    if (cli === 'codex' || cli === 'gemini' || cli === 'command') {
      throw new AgentError(
        `the workflow's gates (config{gates}) hold tool calls for a person, which only Claude Code agents can do; agent ${def.name} runs ${cli === 'command' ? 'a command:' : dialectOf(def).label} — give it cli: claude, or run it in a workflow without gates`,
      );
    }
    // Each block kept apart: neither the agent's nor the workflow's can release what the other holds.
    return { ...def, gates: [...(def.gates ?? []), ...extra] };
  }

  /** Whether a Claude Code agent's calls may be deferred here (its own gates:, the run's, or its AskUserQuestion). */
  private hasGates(name: string): boolean {
    let def: AgentDef;
    try {
      def = this.ctx.ports.loadAgent(name);
    } catch {
      // An agent whose file no longer reads is not resumed to hand a decision over: its ask is answered as any other.
      return false;
    }
    const claude = dialectOf(def).cli === 'claude';
    return Boolean(def.gates?.length || (claude && (this.ctx.config().gates?.length || asksPerson(def))));
  }

  /** The call's last trail event of these gate types, when its agent may be gated at all (its trail is read only then). */
  private async lastGateEvent(exec: Execution, types: readonly string[]) {
    if (!exec.agent || !this.hasGates(exec.agent)) return null;
    const events = await this.ctx.ports.store.listEvents(this.ctx.run.id);
    return events.filter((e) => types.includes(e.type) && e.key === exec.key).at(-1) ?? null;
  }

  /** The tool call this waiting ask is about, when the agent has gates and its session deferred one; else null. */
  async pendingGate(exec: Execution): Promise<DeferredTool | null> {
    if (exec.kind !== 'run') return null;
    const last = await this.lastGateEvent(exec, ['tool_deferred']);
    const data = last?.data as
      { ask?: unknown; tool_use_id?: unknown; tool?: unknown; input?: unknown } | null | undefined;
    if (!data || data.ask !== exec.ask || typeof data.tool_use_id !== 'string' || typeof data.tool !== 'string')
      return null;
    return { id: data.tool_use_id, name: data.tool, input: (data.input ?? {}) as Record<string, unknown> };
  }

  /** The decision last handed to this call's deferred tool call, when nothing was deferred since (an interrupted hand-over). */
  private async decidedGate(rec: Execution): Promise<GateDecision | null> {
    const last = await this.lastGateEvent(rec, ['tool_deferred', 'tool_decided']);
    if (last?.type !== 'tool_decided') return null;
    const d = last.data as {
      tool_use_id?: unknown;
      decision?: unknown;
      reason?: unknown;
      input?: unknown;
      attempt?: unknown;
    } | null;
    // Only the attempt that was handing it over: a later one (the call went on, then died) resumes as usual.
    if (
      !d ||
      typeof d.tool_use_id !== 'string' ||
      (d.decision !== 'allow' && d.decision !== 'deny') ||
      d.attempt !== rec.attempts
    )
      return null;
    return {
      tool_use_id: d.tool_use_id,
      decision: d.decision,
      ...(typeof d.reason === 'string' ? { reason: d.reason } : {}),
      ...(d.input && typeof d.input === 'object' ? { updatedInput: d.input as Record<string, unknown> } : {}),
    };
  }

  /** The person's decision goes back to the deferred call: the session resumes with no prompt, and Shop's hook hands it over. */
  async decideGate(exec: Execution, tool: DeferredTool, answer: Answer, signal: AbortSignal): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    const agent = ports.loadAgent(exec.agent!);
    const decision = gateDecision(tool, answer);
    const { staleHold } = await freeSession(
      ports,
      run.id,
      (await ports.store.getExecution(run.id, exec.key)) ?? exec,
      true,
    );
    const again = await this.restart(exec, staleHold);
    await ports.store.appendEvent(token, run.id, {
      type: 'tool_decided',
      key: exec.key,
      actor: answer.responder,
      channel: answer.channel,
      data: {
        tool_use_id: tool.id,
        tool: tool.name,
        decision: decision.decision,
        reason: decision.reason ?? null,
        input: decision.updatedInput ? boundedInput(decision.updatedInput) : null,
        attempt: exec.attempts + 1,
      },
    });
    const opts = (exec.request ?? {}) as RunOptions;
    return this.invoke(
      again,
      agent,
      { ...opts, budget_usd: await this.budgetFor(opts) },
      { resume: true, prompt: '', attempt: exec.attempts + 1, gate: decision },
      signal,
    );
  }

  /** Turns a final signal into the call's result: wait for a person, return, or fail. */
  private async settle(
    exec: Execution,
    opts: RunOptions,
    signal: Signal,
    metrics: AgentMetrics | undefined,
    def?: AgentDef,
  ): Promise<Settled> {
    const { ports, run, token } = this.ctx;
    const text = signal.summary ?? signal.reason ?? null;
    // Said once what it says is recorded: a person who acts on an ask's line finds the ask.
    const say = () =>
      ports.notifier.notify({ type: 'agent_finished', key: exec.key, agent: exec.agent!, status: signal.status, text });
    if (signal.status === 'NEEDS_HUMAN' && this.humanAllowed(exec, opts, def)) {
      const waitingFor = signal.reason ?? signal.summary ?? 'the agent needs a person';
      const ask = {
        waitingFor,
        awaiting: signal.awaiting ?? 'input',
        metrics,
        timers: this.ctx.timersFor(exec),
        claimTimeout: this.ctx.config().claim_timeout,
        ...(signal.choices?.length ? { decisions: [choiceDecision(waitingFor, signal.choices)] } : {}),
      };
      const execution = await ports.store.markWaiting(
        token,
        run.id,
        exec.key,
        ask,
        this.ctx.statusWhenWaiting(exec.key),
      );
      say();
      return { kind: 'waiting', execution, fresh: true };
    }
    if (opts.statuses && signal.status !== 'NEEDS_HUMAN' && !opts.statuses.includes(signal.status)) {
      say();
      throw new AgentError(
        `agent ${exec.agent} reported ${signal.status}; the workflow allows ${opts.statuses.join(', ')}`,
        metrics,
      );
    }
    const result = { ...signal, session_id: exec.sessionId };
    const delivered = await ports.store.completeExecution(token, run.id, exec.key, result, metrics);
    say();
    return { kind: 'value', value: result, delivered };
  }

  private humanAllowed(exec: Execution, opts: RunOptions, def?: AgentDef): boolean {
    if (opts.human === false || this.ctx.config().human_escalation === false) return false;
    return (def ?? this.ctx.ports.loadAgent(exec.agent!)).human !== false;
  }
}

/** The last non-empty line an agent wrote to stderr, for the one-line failure message. */
function lastLine(file: string): string | null {
  const text = readTail(file, 64 * 1024);
  const line = text.trim().split('\n').pop()?.trim();
  return line ? capText(line, 200) : null;
}

function agentEnv(
  run: Run,
  exec: Execution,
  agent: AgentDef,
  { binDir, home }: EnginePorts['paths'],
  traceparent: string | undefined,
): Record<string, string> {
  const env: Record<string, string> = {
    SHOP_RUN_ID: String(run.id),
    SHOP_CALL: exec.key,
    SHOP_AGENT: agent.name,
    SHOP_SIGNAL_FILE: exec.signalPath!,
  };
  // Read by Shop's PreToolUse hook (shop gate) in the agent's session.
  if (agent.gates?.length) {
    env.SHOP_GATES = JSON.stringify(agent.gates);
    // File rules match paths relative to the workspace: the hook learns it from Shop, not from the agent.
    env.SHOP_WORKSPACE = exec.cwd ?? run.workspace;
  }
  if (exec.sessionId) env.SHOP_SESSION_ID = exec.sessionId;
  if (binDir) env.PATH = `${binDir}:${process.env.PATH ?? ''}`;
  // shop report records the report in this run's store, whatever folder the agent works in.
  if (home) env.SHOP_HOME = home;
  // The attempt's span: Claude Code's own telemetry joins the run's trace under it.
  if (traceparent) env.TRACEPARENT = traceparent;
  return env;
}

/** `shop mcp` of the running shop (its node, its bin/shop): never another shop found on the agent's PATH. */
function shopMcp({ binDir }: EnginePorts['paths']): ShopMcpCommand | null {
  return binDir ? { command: process.execPath, args: [join(binDir, 'shop'), 'mcp'] } : null;
}

/**
 * The file a gated Write would replace, as it is now: only inside the workspace, only a regular
 * file (never through a link, never a FIFO: the path is the agent's), at most 1 MiB; else null.
 */
function currentFile(tool: DeferredTool, cwd: string): string | null {
  if (tool.name !== 'Write' || typeof tool.input.file_path !== 'string') return null;
  const path = resolve(cwd, tool.input.file_path);
  if (!path.startsWith(`${resolve(cwd)}${sep}`)) return null;
  const read = readAgentFile(path, 1024 * 1024);
  return read.kind === 'text' ? read.text : null;
}
