import { basename } from 'node:path';
import {
  AgentError,
  BudgetSpent,
  ExitCode,
  RulesChangedError,
  ShopError,
  type NonDeterminismError,
} from '../errors.js';
import { LuaVm, VmFatal, type LuaThread, type Step } from '../lua/lua-vm.js';
import type { AnyCall } from '../lua/calls/definition.js';
import type { CallRequest, HostRequest } from '../lua/requests.js';
import type { WorkflowConfig } from '../lua/workflow-config.js';
import type { SignalSource } from '../signals/signal-source.js';
import type { ActiveStatus, RunEnd } from '../store/store.js';
import { capText } from '../text.js';
import type { Execution, Run } from '../types.js';
import { askTimers } from './ask-timers.js';
import { Branches } from './branches.js';
import { fireDueTimers } from './fire-timers.js';
import { openAsk } from './open-ask.js';
import { CallRunner } from './calls.js';
import { LiveTasks, type TaskProblem } from './live-tasks.js';
import { explainMismatch, unreached } from './mismatch.js';
import { ended, type DriveOutcome } from './outcome.js';
import type { EnginePorts } from './ports.js';
import type { ReplayLog } from './replay-log.js';
import type { Strand } from './strands.js';
import { CallMismatch, ThreadHost } from './thread-host.js';
import { Threads } from './threads.js';
import { RulesInForce } from './rules-in-force.js';
import type { Slots } from './slots.js';
import type { Ownership } from './ownership.js';

/** How often a driver looks at the store: stop requests, its lease, answers from elsewhere. */
const CHECK_MS = 500;

/** The owner's periodic look at the store. */
export type CheckIn = { kind: 'ok'; run?: Run } | { kind: 'lost' } | { kind: 'stop'; reason: string; by: string };

interface SchedulerDeps {
  ports: EnginePorts;
  run: Run;
  token: string;
  log: ReplayLog;
  /**
   * The log() lines recorded before this drive, per thread: a replay makes them again, and they
   * are skipped. Read at the first write of a line, so a replay that logs nothing reads none (on
   * a run of 10,000 calls, a scan of its trail: 7–17 ms of a new process's resume).
   */
  logCounts(): Promise<Map<string, number>>;
  /** Keep going while only people are awaited (shop run --wait), resuming in place. */
  wait: boolean;
  interrupt?: AbortSignal;
  /** The driver's hold on the run is gone (Ownership.lost): agents end, nothing more is written. */
  lost?: AbortSignal;
  /** Tells the driver's hold that a write or a look found the run another driver's. */
  lose?(): void;
  /** Agents and commands across all the runs of this process (shop watch --max-parallel). */
  sharedSlots?: Slots;
  /** A dry replay (shop replay): the log is replayed against the workflow, nothing is written or started. */
  dry?: boolean;
  checkIn(): Promise<CheckIn>;
  /** Drives a child run of this one (call_workflow) in this process (StepContext.driveChild). */
  driveChild?(runId: number, signal: AbortSignal, owner?: Ownership): Promise<DriveOutcome>;
}

/**
 * Drives a run's Lua threads: replays the recorded calls in their recorded delivery order,
 * then goes on live — calls in flight at once, each thread waiting on its own — until the
 * run ends or nothing can go on without a person.
 */
export class Scheduler {
  private readonly threads: Threads;
  private readonly host: ThreadHost;
  private readonly tasks: LiveTasks;
  private readonly calls: CallRunner;
  private readonly branches: Branches;
  /** The rules the run recorded, laid over its agents and config{}; the rule files watched around its steps. */
  private readonly rules: RulesInForce;
  private readonly toPoll = new Set<string>();
  private readonly announced = new Set<string>();
  /** New asks being opened (auto_approve, notices): the run does not suspend before they are. */
  private readonly opening = new Set<Promise<void>>();
  private outcome: DriveOutcome | null = null;
  /** deps.logCounts(), once read. */
  private recordedLogs: Map<string, number> | null = null;
  private lastCheck = 0;
  private wakeUp: (() => void) | null = null;
  private signals: SignalSource | null = null;

  constructor(private readonly deps: SchedulerDeps) {
    const { ports, run, token, log } = deps;
    this.threads = new Threads(run.seed);
    this.tasks = new LiveTasks(
      () => this.wakeUp?.(),
      (exec, fresh) => this.onWaiting(exec, fresh),
      deps.sharedSlots,
    );
    this.host = new ThreadHost(
      this.threads,
      log,
      run,
      (settings) => (this.tasks.slots.limit = settings.max_parallel ?? Infinity),
    );
    this.rules = new RulesInForce({
      ports,
      run,
      token,
      dry: deps.dry ?? false,
      onDiffers: (differs) => ports.notifier.notify({ type: 'rules_kept', runId: run.id, differs }),
    });
    this.calls = new CallRunner(
      {
        // Every agent a step loads has the run's rules laid over its file's.
        ports: { ...ports, loadAgent: this.rules.loadAgent },
        run,
        token,
        config: () => this.host.settings,
        statusWhenWaiting: (key, world) => this.statusWhenWaiting(key, world),
        timersFor: (ask) => askTimers(this.host.settings, ask, ports.clock.now()),
        files: this.rules,
        driveChild: deps.driveChild,
      },
      (agent) => this.rules.firstUse(agent),
    );
    this.branches = new Branches({
      ports,
      run,
      token,
      log,
      threads: this.threads,
      tasks: this.tasks,
      toPoll: this.toPoll,
      dry: deps.dry ?? false,
    });
  }

  /** Drives until the run ends or waits; after a wait it may be called again to go on. */
  async drive(): Promise<DriveOutcome> {
    this.outcome = null;
    // Driven again after a wait: an answer came in for one of the waiting calls.
    for (const key of this.tasks.waiting.keys()) this.toPoll.add(key);
    if (!this.threads.vm) await this.start();
    while (!this.outcome) await this.step();
    return this.outcome;
  }

  /** What config{} set so far. */
  get settings(): WorkflowConfig {
    return this.host.settings;
  }

  async close(): Promise<void> {
    await this.signals?.close();
  }

  /** Loads the workflow; a file gone or broken since the run started fails the run (resume retries it). */
  private async start() {
    const { ports, run } = this.deps;
    this.threads.loadStart = this.threads.sliceStart = performance.now();
    let vm: LuaVm;
    try {
      vm = new LuaVm(
        ports.readWorkflow(run.workflowPath),
        basename(run.workflowPath),
        this.host,
        true,
        ports.modules?.() ?? null,
      );
      // A loop in the file's top-level code: stop, Ctrl-C and SIGTERM reach it between slices.
      while (vm.loadStep() === 'preempted') {
        await new Promise((r) => setImmediate(r));
        await this.checkIn();
        if (this.outcome) return;
        this.threads.sliceStart = performance.now();
      }
      // The file's config{} is recorded the first time; after that the run keeps its own.
      this.host.fix(this.rules.config(this.host.settings));
      await this.rules.flush();
    } catch (e) {
      if (!(e instanceof ShopError)) throw e;
      return this.finish(
        { status: 'failed', reason: e.message, event: failedEvent(e.message) },
        { exitCode: e.exitCode, checked: true },
      );
    }
    this.threads.vm = vm;
    this.threads.main = this.threads.adopt(this.threads.vm.mainThread(run.prompt), '', null);
    this.threads.ready.push(this.threads.main);
  }

  private async step(): Promise<void> {
    const { threads, tasks } = this;
    const problem = tasks.problems.shift();
    if (problem) return this.onProblem(problem);
    if (this.deps.lost?.aborted) return this.halt('lost');
    if (this.deps.interrupt?.aborted) return this.halt('interrupted');
    const s = threads.ready.shift();
    if (s) return this.runStrand(s);
    if (threads.deliverNext(this.deps.log, tasks.deliveries)) return;
    if (threads.phase === 'replay') return this.endReplay();
    if (this.toPoll.size) return this.pollWaiting();
    return this.idle();
  }

  private async runStrand(s: Strand): Promise<void> {
    const vm = this.threads.vm!;
    this.threads.sliceStart = s.luaSince = performance.now();
    let step: Step;
    try {
      step = vm.resume(s.lua, s.input);
    } catch (e) {
      if (e instanceof VmFatal) return this.fatal(e);
      throw e;
    }
    s.input = { kind: 'continue' };
    for (const b of s.releaseAfter.splice(0)) vm.release(b);
    await this.flushLogs();
    switch (step.kind) {
      case 'preempted':
        s.luaCarried += performance.now() - s.luaSince;
        this.threads.ready.unshift(s);
        // Let signal handlers and timers run (Ctrl-C, the check-in below) before it goes on.
        await new Promise((r) => setImmediate(r));
        return this.checkIn();
      case 'call':
        return this.onCall(s, step.request, step.def, step.branches);
      case 'done':
        return this.onDone(s);
      case 'error':
        s.state = 'failed';
        if (s !== this.threads.main) return this.branches.failed(s, step.message);
        return this.finish({ status: 'failed', reason: step.message, event: failedEvent(step.message) });
    }
  }

  private async onCall(s: Strand, req: HostRequest, def: AnyCall, branches: LuaThread[]): Promise<void> {
    if (def.flow === 'end') return this.finish(def.ends!(req));
    const key = s.key!;
    if (req.type === 'parallel') return this.branches.start(s, key, req.branches, branches);
    s.state = 'blocked';
    this.threads.blocked.set(key, s);
    const rec = this.deps.log.get(key);
    // A recorded result is handed over in its recorded turn (deliverNext).
    if (rec?.status === 'completed' && rec.delivered != null) return;
    const start = () => this.startLive(key, def, req as CallRequest, rec != null);
    if (this.threads.phase === 'replay') this.threads.deferred.push({ path: s.path, start });
    else start();
  }

  private startLive(key: string, def: AnyCall, req: CallRequest, recorded: boolean) {
    this.tasks.launch(key, def.working ?? false, (signal) => this.calls.start(key, def, req, recorded, signal));
  }

  private async onDone(s: Strand): Promise<void> {
    s.state = 'done';
    if (s !== this.threads.main) return this.branches.done(s);
    const r = this.threads.vm!.result(s.lua);
    if ('error' in r) return this.finish({ status: 'failed', reason: r.error, event: failedEvent(r.error) });
    return this.finish({
      status: 'completed',
      result: r.value,
      event: { type: 'completed', actor: 'shop', channel: 'engine' },
    });
  }

  /** Every recorded result is handed over: check nothing recorded was skipped, then go live. */
  private async endReplay(): Promise<void> {
    const missing = this.threads.overdue(this.deps.log) ?? this.deps.log.firstUnreached();
    if (missing) return this.mismatch(unreached(missing, 'does not reach it: it waits elsewhere'));
    if (this.deps.dry) return void (this.outcome = { status: 'replayed' });
    this.threads.phase = 'live';
    for (const d of this.threads.deferred.splice(0)) await d.start();
  }

  private pollWaiting() {
    for (const key of [...this.toPoll]) {
      this.toPoll.delete(key);
      const exec = this.tasks.waiting.get(key);
      if (!exec || this.tasks.has(key)) continue;
      this.tasks.waiting.delete(key);
      this.tasks.launch(
        key,
        false,
        (signal) => this.calls.poll(exec, signal),
        () => this.tasks.waiting.set(key, exec),
      );
    }
  }

  private onWaiting(exec: Execution, fresh: boolean) {
    // A recorded ask picked up on replay may have its answer already (a wait, its time come): look at once.
    if (!fresh) return void this.toPoll.add(exec.key);
    // A wait on the world asks no one: nothing to open, nobody to tell; this process says so when it keeps waiting.
    if (exec.status === 'waiting') {
      if (this.deps.wait || this.tasks.size > 1) this.announce(exec);
      return;
    }
    // A new ask while others still run (or this process waits on): say so now; otherwise the outcome says it.
    if (this.deps.wait || this.tasks.size > 1) this.announce(exec);
    // auto_approve may answer it at once; else the notify targets are told. Suspending waits for this.
    const { ports, run } = this.deps;
    const opening: Promise<void> = openAsk(ports, run, this.host.settings, exec)
      .then((answered) => {
        if (!answered) return;
        this.toPoll.add(exec.key);
        this.wakeUp?.();
      })
      .catch((e: unknown) => void this.tasks.problems.push({ kind: 'crashed', error: e }))
      .finally(() => this.opening.delete(opening));
    this.opening.add(opening);
  }

  private announce(exec: Execution) {
    const id = `${exec.key}#${exec.ask}`;
    if (this.announced.has(id)) return;
    this.announced.add(id);
    this.deps.ports.notifier.notify({ type: exec.status === 'waiting' ? 'waiting_on' : 'waiting', execution: exec });
  }

  /** Nothing to run: wait for a call in flight, or — when only people are awaited — suspend. */
  private async idle(): Promise<void> {
    if (this.opening.size) {
      await Promise.all(this.opening);
      return;
    }
    if (this.tasks.size === 0) {
      if (this.tasks.waiting.size === 0) throw new Error('the scheduler has nothing to run and nothing to wait for');
      await this.markSuspended();
      if (!this.deps.wait) {
        const all = [...this.tasks.waiting.values()].sort((a, b) => a.seq - b.seq);
        const asks = all.filter((e) => e.status === 'waiting_human');
        // A person is asked: that is what the run waits for (its timers and other waits go on under it).
        if (asks.length) this.outcome = { status: 'waiting_human', execution: asks[0], waiting: asks };
        else this.outcome = { status: 'waiting', waits: all };
        return;
      }
      for (const exec of this.tasks.waiting.values()) this.announce(exec);
      this.signals ??= this.deps.ports.openSignals();
    }
    const woke = await this.sleep();
    if (woke === 'signal') for (const key of this.tasks.waiting.keys()) this.toPoll.add(key);
    await this.checkIn();
  }

  /** Until a task settles, a signal file changes, Ctrl-C, or the next check-in is due. */
  private sleep(): Promise<'wake' | 'signal' | 'tick'> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done('tick'), CHECK_MS);
      const onAbort = () => done('wake');
      const done = (why: 'wake' | 'signal' | 'tick') => {
        clearTimeout(timer);
        this.deps.interrupt?.removeEventListener('abort', onAbort);
        this.deps.lost?.removeEventListener('abort', onAbort);
        this.wakeUp = null;
        resolve(why);
      };
      this.wakeUp = () => done('wake');
      this.deps.interrupt?.addEventListener('abort', onAbort, { once: true });
      this.deps.lost?.addEventListener('abort', onAbort, { once: true });
      this.signals?.next().then(() => done('signal'));
    });
  }

  /** The owner's periodic look at the store (stop, lease) and at answers from elsewhere. */
  private async checkIn(): Promise<void> {
    if (this.deps.lost?.aborted) return this.halt('lost');
    if (this.deps.interrupt?.aborted) return this.halt('interrupted');
    const now = performance.now();
    if (now - this.lastCheck < CHECK_MS) return;
    this.lastCheck = now;
    const verdict = await this.deps.checkIn();
    if (verdict.kind === 'lost') return this.lose();
    if (verdict.kind === 'stop') {
      const reason = verdict.reason;
      return this.finish(
        { status: 'stuck', reason, event: { type: 'stopped', actor: verdict.by, channel: 'cli', data: { reason } } },
        { checked: true },
      );
    }
    const { ports, run, token } = this.deps;
    if ((await fireDueTimers(ports, run, token)).ended) {
      // A timeout ended the run (on_timeout = stuck).
      await this.tasks.abort();
      this.outcome = ended((await ports.store.getRun(run.id))!);
      return;
    }
    if (this.deps.wait || this.tasks.size) for (const key of this.tasks.waiting.keys()) this.toPoll.add(key);
  }

  private async onProblem(p: TaskProblem): Promise<void> {
    if (p.kind === 'lost') return this.lose();
    if (p.kind === 'crashed') {
      await this.tasks.abort();
      throw p.error;
    }
    if (p.error instanceof RulesChangedError) {
      const reason = p.error.message;
      // Held: the step stays running with its report on disk (not failed), to be completed by a resume.
      return this.finish(
        { status: 'failed', reason, held: p.error.held, event: failedEvent(reason, p.key) },
        { exitCode: ExitCode.failed, checked: true },
      );
    }
    if (p.error instanceof BudgetSpent) {
      const reason = p.error.message;
      return this.finish(
        {
          status: 'stuck',
          reason,
          event: { type: 'budget_spent', key: p.key, actor: 'shop', channel: 'engine', data: { reason } },
        },
        { checked: true },
      );
    }
    const metrics = p.error instanceof AgentError ? p.error.metrics : undefined;
    // A call that failed fails the run: exit 1, whatever kind of error it was (an agent file not found is not "run not found").
    return this.finish(
      {
        status: 'failed',
        reason: p.error.message,
        failedKey: p.key,
        metrics,
        event: failedEvent(p.error.message, p.key),
      },
      { exitCode: ExitCode.failed },
    );
  }

  /** Found another driver's: the hold is told (its `lost` fires), then everything stops. */
  private lose(): Promise<void> {
    this.deps.lose?.();
    return this.halt('lost');
  }

  /** Stops everything in flight and leaves the run as it is (resumable), or to its new owner. */
  private async halt(kind: 'interrupted' | 'lost'): Promise<void> {
    await this.tasks.abort();
    this.outcome = { status: kind };
  }

  private async fatal(e: VmFatal): Promise<void> {
    const cause = e.cause;
    if (cause instanceof CallMismatch) {
      const { ports, run } = this.deps;
      return this.mismatch(await explainMismatch(ports.store, run.id, run.prompt, cause.key, cause.req, cause.def));
    }
    const exitCode = cause instanceof ShopError ? cause.exitCode : undefined;
    return this.finish({ status: 'failed', reason: e.message, event: failedEvent(e.message) }, { exitCode });
  }

  private mismatch(e: NonDeterminismError): Promise<void> {
    if (this.deps.dry) {
      this.outcome = {
        status: 'failed',
        reason: e.message,
        exitCode: e.exitCode,
        nonDeterminism: { key: e.key, recorded: e.recorded, attempted: e.attempted },
      };
      return Promise.resolve();
    }
    return this.finish(
      { status: 'failed', reason: e.message, event: failedEvent(e.message) },
      { exitCode: e.exitCode, checked: true },
    );
  }

  /**
   * Ends the run. A script that ends while recorded calls remain unreached has changed: that
   * is a non-determinism, and the log stays as it is so restoring the workflow resumes.
   */
  private async finish(end: RunEnd, opts: { exitCode?: number; checked?: boolean } = {}): Promise<void> {
    const { log, ports, run, token } = this.deps;
    const skipped = opts.checked ? undefined : (this.threads.overdue(log) ?? log.firstUnreached());
    if (skipped)
      return this.mismatch(unreached(skipped, `${end.status === 'completed' ? 'returns' : 'ends'} before reaching it`));
    if (this.deps.dry) {
      this.outcome =
        end.status === 'failed'
          ? { status: 'failed', reason: capText(end.reason ?? 'failed', 1000), exitCode: opts.exitCode ?? 1 }
          : { status: 'replayed' };
      return;
    }
    await this.tasks.abort();
    await this.rules.flush();
    // A reason may quote the script's own text (error(…), stuck(…)): one line, capped.
    if (end.reason) end = { ...end, reason: capText(end.reason, 1000) };
    const changed = await ports.store.finishRun(token, run.id, end);
    const now = (await ports.store.getRun(run.id))!;
    if (changed && end.status === 'failed')
      this.outcome = { status: 'failed', reason: now.reason ?? end.reason ?? 'failed', exitCode: opts.exitCode ?? 1 };
    else this.outcome = ended(now);
  }

  /**
   * Only waits are left: the run's status says on what — `waiting_human` while a person is
   * asked (a branch finishing never hides an ask), else `waiting` (time, events, other runs).
   */
  private async markSuspended() {
    // What the steps noted of the run's rules (a first use, a file that now says otherwise) is recorded before it waits.
    await this.rules.flush();
    const { ports, run, token } = this.deps;
    const now = await ports.store.getRun(run.id);
    const status = this.waitStatus();
    if (
      now?.status === status ||
      (now?.status !== 'running' && now?.status !== 'waiting' && now?.status !== 'waiting_human')
    )
      return;
    const keys = [...this.tasks.waiting.keys()];
    await ports.store.setRunStatus(token, run.id, status, {
      type: 'suspended',
      actor: 'shop',
      channel: 'engine',
      data: { waiting: keys },
    });
  }

  /** The run's status once nothing but waits is left: a person asked, or only the world awaited. */
  private waitStatus(): 'waiting' | 'waiting_human' {
    for (const e of this.tasks.waiting.values()) if (e.status === 'waiting_human') return 'waiting_human';
    return 'waiting';
  }

  /** The run's status once `key` waits (on a person, or on the world): running while anything else goes on. */
  private statusWhenWaiting(key: string, world = false): ActiveStatus {
    const others = this.tasks.size - (this.tasks.has(key) ? 1 : 0);
    if (others > 0 || this.threads.ready.length > 0 || this.tasks.deliveries.has(this.threads.nextDelivery))
      return 'running';
    return world ? this.waitStatus() : 'waiting_human';
  }

  private async flushLogs() {
    await this.rules.flush();
    const { logs } = this.host;
    if (!logs.length) return;
    if (this.deps.dry) return void logs.splice(0);
    const { ports, run, token } = this.deps;
    this.recordedLogs ??= await this.deps.logCounts();
    for (const { message, thread, nth } of logs.splice(0)) {
      if (nth < (this.recordedLogs.get(thread) ?? 0)) continue;
      ports.notifier.notify({ type: 'log', message, key: thread });
      await ports.store.appendEvent(token, run.id, {
        type: 'log',
        actor: 'workflow',
        channel: 'engine',
        data: thread ? { message, thread } : { message },
      });
    }
  }
}

function failedEvent(reason: string, key?: string) {
  return { type: 'failed', key: key ?? null, actor: 'shop', channel: 'engine' as const, data: { reason } };
}
