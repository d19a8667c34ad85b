import { basename } from 'node:path';
import { AgentError, NonDeterminismError, ShopError } from '../errors.js';
import { LuaVm, VmFatal, type LuaThread, type ResumeWith, type Step, type VmHost } from '../lua/lua-vm.js';
import { matchesRecord, parseConfig, type CallRequest, type HostRequest, type WorkflowConfig } from '../lua/requests.js';
import type { SignalSource } from '../signals/signal-source.js';
import type { ActiveStatus, RunEnd } from '../store/store.js';
import { capText } from '../text.js';
import type { Execution, Run } from '../types.js';
import { CallRunner, type LiveRequest } from './calls.js';
import { LiveTasks, type TaskProblem } from './live-tasks.js';
import { explainMismatch, unreached } from './mismatch.js';
import { ended, type DriveOutcome } from './outcome.js';
import type { EnginePorts } from './ports.js';
import type { ReplayLog } from './replay-log.js';
import { keyOf, newStrand, within, type ParallelGroup, type Strand } from './strands.js';

/** Pure Lua a thread may run before the scheduler looks at Ctrl-C and stop requests. */
const SLICE_MS = 50;
/** How often a driver looks at the store: stop requests, its lease, answers from elsewhere. */
export const CHECK_MS = 500;
const DEFAULT_LUA_TIMEOUT_S = 10;

/** The owner's periodic look at the store. */
export type CheckIn = { kind: 'ok' } | { kind: 'lost' } | { kind: 'stop'; reason: string; by: string };

export interface SchedulerDeps {
  ports: EnginePorts;
  run: Run;
  token: string;
  log: ReplayLog;
  logCounts: Map<string, number>;
  /** Keep going while only people are awaited (shop run --wait), resuming in place. */
  wait: boolean;
  interrupt?: AbortSignal;
  checkIn(): Promise<CheckIn>;
}

/**
 * Drives a run's Lua threads: replays the recorded calls in their recorded delivery order,
 * then goes on live — calls in flight at once, each thread waiting on its own — until the
 * run ends or nothing can go on without a person.
 */
export class Scheduler implements VmHost {
  private vm: LuaVm | null = null;
  private readonly strands = new Map<LuaThread, Strand>();
  private main: Strand | null = null;
  private readonly ready: Strand[] = [];
  private readonly blocked = new Map<string, Strand>();
  private nextDelivery = 1;
  private phase: 'replay' | 'live' = 'replay';
  private deferred: { path: string; start: () => Promise<void> | void }[] = [];
  private readonly tasks: LiveTasks;
  private readonly calls: CallRunner;
  private readonly cancelledPaths: string[] = [];
  private readonly toPoll = new Set<string>();
  private readonly announced = new Set<string>();
  private settings: WorkflowConfig = {};
  private logs: { message: string; thread: string }[] = [];
  private outcome: DriveOutcome | null = null;
  private sliceStart = 0;
  private lastCheck = 0;
  private wakeUp: (() => void) | null = null;
  private signals: SignalSource | null = null;

  constructor(private readonly deps: SchedulerDeps) {
    this.tasks = new LiveTasks(() => this.wake(), (exec, fresh) => this.onWaiting(exec, fresh));
    this.calls = new CallRunner({
      ports: deps.ports, run: deps.run, token: deps.token, config: () => this.settings,
      statusWhenWaiting: (key) => this.statusWhenWaiting(key),
    });
  }

  /** Drives until the run ends or waits; after a wait it may be called again to go on. */
  async drive(): Promise<DriveOutcome> {
    this.outcome = null;
    // Driven again after a wait: an answer came in for one of the waiting calls.
    for (const key of this.tasks.waiting.keys()) this.toPoll.add(key);
    if (!this.vm) await this.start();
    while (!this.outcome) await this.step();
    return this.outcome;
  }

  async close(): Promise<void> {
    await this.signals?.close();
  }

  /** Loads the workflow; a file gone or broken since the run started fails the run (resume retries it). */
  private async start() {
    const { ports, run } = this.deps;
    this.sliceStart = performance.now();
    try {
      this.vm = new LuaVm(ports.readWorkflow(run.workflowPath), basename(run.workflowPath), this);
    } catch (e) {
      if (!(e instanceof ShopError)) throw e;
      return this.finish({ status: 'failed', reason: e.message, event: failedEvent(e.message) }, { exitCode: e.exitCode, checked: true });
    }
    this.main = this.adopt(this.vm.mainThread(run.prompt), '', null);
    this.ready.push(this.main);
  }

  private async step(): Promise<void> {
    const problem = this.tasks.problems.shift();
    if (problem) return this.onProblem(problem);
    if (this.deps.interrupt?.aborted) return this.halt('interrupted');
    const s = this.ready.shift();
    if (s) return this.runStrand(s);
    if (this.deliverNext()) return;
    if (this.phase === 'replay') return this.endReplay();
    if (this.toPoll.size) return this.pollWaiting();
    return this.idle();
  }

  private async runStrand(s: Strand): Promise<void> {
    this.sliceStart = performance.now();
    s.luaSince = this.sliceStart;
    let step: Step;
    try {
      step = this.vm!.resume(s.lua, s.input);
    } catch (e) {
      if (e instanceof VmFatal) return this.fatal(e);
      throw e;
    }
    s.input = { kind: 'continue' };
    for (const b of s.releaseAfter.splice(0)) this.vm!.release(b);
    await this.flushLogs();
    switch (step.kind) {
      case 'preempted':
        s.luaCarried += performance.now() - s.luaSince;
        this.ready.unshift(s);
        // Let signal handlers and timers run (Ctrl-C, the check-in below) before it goes on.
        await new Promise((r) => setImmediate(r));
        return this.checkIn();
      case 'call':
        return this.onCall(s, step.request, step.branches);
      case 'done':
        return this.onDone(s);
      case 'error':
        return this.onError(s, step.message);
    }
  }

  private async onCall(s: Strand, req: HostRequest, branches: LuaThread[]): Promise<void> {
    if (req.type === 'stuck') {
      return this.finish({ status: 'stuck', reason: req.reason, event: { type: 'stuck', actor: 'workflow', channel: 'engine', data: { reason: req.reason } } });
    }
    const key = s.key!;
    if (req.type === 'parallel') return this.startParallel(s, key, req, branches);
    s.state = 'blocked';
    this.blocked.set(key, s);
    const rec = this.deps.log.get(key);
    // A recorded result is handed over in its recorded turn (deliverNext).
    if (rec?.status === 'completed' && rec.delivered != null) return;
    const start = () => this.startLive(key, req, rec != null);
    if (this.phase === 'replay') this.deferred.push({ path: s.path, start });
    else start();
  }

  private startLive(key: string, req: LiveRequest, recorded: boolean) {
    const { ports, run } = this.deps;
    this.tasks.launch(key, req.type === 'run' || req.type === 'sh', async (signal) => {
      const rec = recorded ? ((await ports.store.getExecution(run.id, key)) ?? undefined) : undefined;
      return this.calls.start(key, req, rec, signal);
    });
  }

  private async startParallel(s: Strand, key: string, req: CallRequest & { type: 'parallel' }, threads: LuaThread[]) {
    const group: ParallelGroup = { key, parent: s, branches: [], finished: 0 };
    threads.forEach((t, i) => group.branches.push(this.adopt(t, `${key}/${i + 1}`, group)));
    s.state = 'parallel';
    s.children = group;
    this.ready.push(...group.branches);
    if (this.deps.log.get(key)) return;
    const { ports, run, token } = this.deps;
    await this.whenLive(s.path, () => ports.store.startExecution(token, {
      runId: run.id, key, kind: 'parallel', agent: null, fingerprint: `parallel(${req.branches} branches)`, sessionId: null,
      cwd: run.workspace, prompt: null, request: { branches: req.branches }, signalPath: null,
    }).then(() => undefined));
  }

  private async onDone(s: Strand): Promise<void> {
    s.state = 'done';
    if (s === this.main) {
      const r = this.vm!.result(s.lua);
      if ('error' in r) return this.finish({ status: 'failed', reason: r.error, event: failedEvent(r.error) });
      return this.finish({ status: 'completed', result: r.value, event: { type: 'completed', actor: 'shop', channel: 'engine' } });
    }
    const g = s.group!;
    if (++g.finished < g.branches.length) return;
    await this.closeParallel(g, null);
    g.parent.releaseAfter.push(...g.branches.map((b) => b.lua));
    for (const b of g.branches) this.strands.delete(b.lua);
    this.resumeParent(g, { kind: 'branches', threads: g.branches.map((b) => b.lua) });
  }

  private async onError(s: Strand, message: string): Promise<void> {
    s.state = 'failed';
    if (s === this.main) return this.finish({ status: 'failed', reason: message, event: failedEvent(message) });
    const g = s.group!;
    const reason = `parallel: branch ${g.branches.indexOf(s) + 1} (${s.path}) failed: ${message}`;
    await this.cancel(g.branches.filter((b) => b !== s), `cancelled: ${reason}`);
    await this.closeParallel(g, reason);
    for (const b of g.branches) this.forget(b);
    this.resumeParent(g, { kind: 'error', message: reason });
  }

  private resumeParent(g: ParallelGroup, input: ResumeWith) {
    g.parent.children = null;
    g.parent.state = 'ready';
    g.parent.input = input;
    this.ready.push(g.parent);
  }

  private async closeParallel(g: ParallelGroup, error: string | null) {
    const rec = this.deps.log.get(g.key);
    if (rec && rec.status !== 'running') return;
    const { ports, run, token } = this.deps;
    await this.whenLive(g.parent.path, () => ports.store.closeExecution(token, run.id, g.key, error));
  }

  /** Cancels threads (with the branches nested in them): their calls are stopped and marked failed. */
  private async cancel(victims: Strand[], reason: string): Promise<void> {
    const paths = victims.filter((v) => v.state !== 'done' && v.state !== 'failed').map((v) => v.path);
    if (!paths.length) return;
    this.cancelledPaths.push(...paths);
    const inside = (path: string) => paths.some((p) => within(path, p));
    for (const t of [...this.strands.values()]) if (t !== this.main && inside(t.path)) this.forget(t);
    for (const [key] of this.blocked) if (inside(key)) this.blocked.delete(key);
    this.deferred = this.deferred.filter((d) => !inside(d.path));
    for (const key of this.toPoll) if (inside(key)) this.toPoll.delete(key);
    const keys = [...(await this.tasks.abort(paths)), ...this.tasks.dropWaiting(paths)];
    if (keys.length) await this.deps.ports.store.cancelExecutions(this.deps.token, this.deps.run.id, keys, reason);
  }

  private forget(t: Strand) {
    if (!this.strands.delete(t.lua)) return;
    if (t.state !== 'done' && t.state !== 'failed') t.state = 'cancelled';
    const i = this.ready.indexOf(t);
    if (i >= 0) this.ready.splice(i, 1);
    this.vm!.release(t.lua);
  }

  /** Hands the next result, in delivery order, to the thread waiting on it. */
  private deliverNext(): boolean {
    const n = this.nextDelivery;
    const rec = n <= this.deps.log.lastDelivered ? this.deps.log.delivery(n) : undefined;
    const item = rec ? { key: rec.key, value: rec.result } : this.tasks.deliveries.get(n);
    if (!item) return false;
    const s = this.blocked.get(item.key);
    if (s) {
      this.blocked.delete(item.key);
      s.state = 'ready';
      s.input = { kind: 'values', values: [item.value] };
      this.ready.push(s);
    } else if (!this.cancelledPaths.some((p) => within(item.key, p))) return false;
    this.tasks.deliveries.delete(n);
    this.nextDelivery++;
    return true;
  }

  /** Every recorded result is handed over: check nothing recorded was skipped, then go live. */
  private async endReplay(): Promise<void> {
    const { log } = this.deps;
    const next = this.nextDelivery <= log.lastDelivered ? log.delivery(this.nextDelivery) : undefined;
    const missing = next ?? log.firstUnreached();
    if (missing) return this.mismatch(unreached(missing, 'does not reach it: it waits elsewhere'));
    this.phase = 'live';
    for (const d of this.deferred.splice(0)) await d.start();
  }

  private async whenLive(path: string, fn: () => Promise<void>): Promise<void> {
    if (this.phase === 'live') await fn();
    else this.deferred.push({ path, start: fn });
  }

  private pollWaiting() {
    for (const key of [...this.toPoll]) {
      this.toPoll.delete(key);
      const exec = this.tasks.waiting.get(key);
      if (!exec || this.tasks.has(key)) continue;
      this.tasks.waiting.delete(key);
      this.tasks.launch(key, false, (signal) => this.calls.poll(exec, signal), () => this.tasks.waiting.set(key, exec));
    }
  }

  private onWaiting(exec: Execution, fresh: boolean) {
    // A recorded ask picked up on replay may have its answer already: look at once.
    if (!fresh) this.toPoll.add(exec.key);
    // A new ask while others still run (or this process waits on): say so now; otherwise the outcome says it.
    else if (this.deps.wait || this.tasks.size > 1) this.announce(exec);
  }

  private announce(exec: Execution) {
    const id = `${exec.key}#${exec.ask}`;
    if (this.announced.has(id)) return;
    this.announced.add(id);
    this.deps.ports.notifier.notify({ type: 'waiting', execution: exec });
  }

  /** Nothing to run: wait for a call in flight, or — when only people are awaited — suspend. */
  private async idle(): Promise<void> {
    if (this.tasks.size === 0) {
      if (this.tasks.waiting.size === 0) throw new Error('the scheduler has nothing to run and nothing to wait for');
      await this.markSuspended();
      if (!this.deps.wait) {
        const waiting = [...this.tasks.waiting.values()].sort((a, b) => a.seq - b.seq);
        this.outcome = { status: 'waiting_human', execution: waiting[0], waiting };
        return;
      }
      for (const exec of this.tasks.waiting.values()) this.announce(exec);
      this.signals ??= this.deps.ports.openSignals();
    }
    const woke = await this.sleep();
    if (woke === 'signal') for (const key of this.tasks.waiting.keys()) this.toPoll.add(key);
    await this.checkIn();
  }

  private sleep(): Promise<'wake' | 'signal' | 'tick'> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done('tick'), CHECK_MS);
      const onAbort = () => done('wake');
      const done = (why: 'wake' | 'signal' | 'tick') => {
        clearTimeout(timer);
        this.deps.interrupt?.removeEventListener('abort', onAbort);
        this.wakeUp = null;
        resolve(why);
      };
      this.wakeUp = () => done('wake');
      this.deps.interrupt?.addEventListener('abort', onAbort, { once: true });
      this.signals?.next().then(() => done('signal'));
    });
  }

  private wake() {
    this.wakeUp?.();
  }

  /** The owner's periodic look at the store (stop, lease) and at answers from elsewhere. */
  private async checkIn(): Promise<void> {
    if (this.deps.interrupt?.aborted) return this.halt('interrupted');
    const now = performance.now();
    if (now - this.lastCheck < CHECK_MS) return;
    this.lastCheck = now;
    const verdict = await this.deps.checkIn();
    if (verdict.kind === 'lost') return this.halt('lost');
    if (verdict.kind === 'stop') {
      const reason = verdict.reason;
      return this.finish({ status: 'stuck', reason, event: { type: 'stopped', actor: verdict.by, channel: 'cli', data: { reason } } }, { checked: true });
    }
    if (this.deps.wait || this.tasks.size) for (const key of this.tasks.waiting.keys()) this.toPoll.add(key);
  }

  private async onProblem(p: TaskProblem): Promise<void> {
    if (p.kind === 'lost') return this.halt('lost');
    if (p.kind === 'crashed') {
      await this.tasks.abort();
      throw p.error;
    }
    const metrics = p.error instanceof AgentError ? p.error.metrics : undefined;
    return this.finish({ status: 'failed', reason: p.error.message, failedKey: p.key, metrics, event: failedEvent(p.error.message, p.key) }, { exitCode: p.error.exitCode });
  }

  /** Stops everything in flight and leaves the run as it is (resumable), or to its new owner. */
  private async halt(kind: 'interrupted' | 'lost'): Promise<void> {
    await this.tasks.abort();
    this.outcome = { status: kind };
  }

  private async fatal(e: VmFatal): Promise<void> {
    const cause = e.cause;
    if (cause instanceof CallMismatch) {
      return this.mismatch(await explainMismatch(this.deps.ports.store, this.deps.run.id, this.deps.run.prompt, cause.key, cause.req));
    }
    return this.finish({ status: 'failed', reason: e.message, event: failedEvent(e.message) });
  }

  private mismatch(e: NonDeterminismError): Promise<void> {
    return this.finish({ status: 'failed', reason: e.message, event: failedEvent(e.message) }, { exitCode: e.exitCode, checked: true });
  }

  /**
   * Ends the run. A script that ends while recorded calls remain unreached has changed: that
   * is a non-determinism, and the log stays as it is so restoring the workflow resumes.
   */
  private async finish(end: RunEnd, opts: { exitCode?: number; checked?: boolean } = {}): Promise<void> {
    const { log, ports, run, token } = this.deps;
    const exitCode = opts.exitCode ?? 1;
    const skipped = opts.checked ? undefined : (this.nextDelivery <= log.lastDelivered ? log.delivery(this.nextDelivery) : undefined) ?? log.firstUnreached();
    if (skipped) return this.mismatch(unreached(skipped, `${end.status === 'completed' ? 'returns' : 'ends'} before reaching it`));
    await this.tasks.abort();
    // A reason may quote the script's own text (error(…), stuck(…)): one line, capped.
    if (end.reason) end = { ...end, reason: capText(end.reason, 1000) };
    const changed = await ports.store.finishRun(token, run.id, end);
    const now = (await ports.store.getRun(run.id))!;
    if (changed && end.status === 'failed') this.outcome = { status: 'failed', reason: now.reason ?? end.reason ?? 'failed', exitCode };
    else this.outcome = ended(now);
  }

  /** Only people are awaited: the run's status says so (a branch finishing never hides an ask). */
  private async markSuspended() {
    const { ports, run, token } = this.deps;
    const now = await ports.store.getRun(run.id);
    if (now?.status !== 'running') return;
    const keys = [...this.tasks.waiting.keys()];
    await ports.store.setRunStatus(token, run.id, 'waiting_human', { type: 'suspended', actor: 'shop', channel: 'engine', data: { waiting: keys } });
  }

  private statusWhenWaiting(key: string): ActiveStatus {
    const others = this.tasks.size - (this.tasks.has(key) ? 1 : 0);
    return others > 0 || this.ready.length > 0 || this.tasks.deliveries.has(this.nextDelivery) ? 'running' : 'waiting_human';
  }

  private adopt(lua: LuaThread, path: string, group: ParallelGroup | null): Strand {
    const s = newStrand(lua, path, this.deps.run.seed, group, this.deps.logCounts.get(path) ?? 0);
    this.strands.set(lua, s);
    return s;
  }

  private async flushLogs() {
    if (!this.logs.length) return;
    const { ports, run, token } = this.deps;
    for (const { message, thread } of this.logs.splice(0)) {
      ports.notifier.notify({ type: 'log', message, key: thread });
      await ports.store.appendEvent(token, run.id, { type: 'log', actor: 'workflow', channel: 'engine', data: thread ? { message, thread } : { message } });
    }
  }

  // ---- VmHost: called synchronously from inside Lua ----

  call(thread: LuaThread, req: HostRequest): { value: unknown } | null {
    const s = this.strands.get(thread)!;
    s.luaCarried = 0;
    s.luaSince = performance.now();
    if (req.type === 'stuck') return null;
    const key = keyOf(s.path, s.calls + 1);
    if (req.type === 'patched') {
      // A run recorded before the patch has another call here: the old path, and no key taken.
      const rec = this.deps.log.get(key);
      if (rec && !(rec.kind === 'patch' && matchesRecord(rec.fingerprint, req))) return { value: false };
    }
    s.calls++;
    s.key = key;
    let rec;
    try {
      rec = this.deps.log.reach(key, req);
    } catch (e) {
      if (e instanceof NonDeterminismError) throw new VmFatal(e.message, { cause: new CallMismatch(key, req) });
      throw e;
    }
    // The hot path of replay: a recorded result whose turn it is, answered without a yield —
    // but only when no other thread is ready to run: live, those ran before any delivery.
    if (rec?.status === 'completed' && rec.delivered === this.nextDelivery && this.ready.length === 0) {
      this.nextDelivery++;
      return { value: rec.result };
    }
    return null;
  }

  log(thread: LuaThread, message: string) {
    const s = this.strands.get(thread);
    if (!s) return;
    if (s.logsToSkip > 0) s.logsToSkip--;
    else this.logs.push({ message, thread: s.path });
  }

  context(thread: LuaThread) {
    const s = this.strands.get(thread);
    const { run } = this.deps;
    return { run_id: run.id, prompt: run.prompt, workspace: run.workspace, call_key: s ? keyOf(s.path, s.calls + 1) : null, thread: s?.path || 'main' };
  }

  config(_thread: LuaThread, table: unknown): string | null {
    const parsed = parseConfig(table);
    if (typeof parsed === 'string') return parsed;
    this.settings = { ...this.settings, ...parsed };
    this.tasks.limit = this.settings.max_parallel ?? Infinity;
    return null;
  }

  random(thread: LuaThread): number {
    return this.strands.get(thread)?.random.next() ?? 0;
  }

  reseed(thread: LuaThread, seed: number) {
    this.strands.get(thread)?.random.reseed(seed);
  }

  tick(thread: LuaThread): 'go' | 'yield' | { error: string } {
    const s = this.strands.get(thread);
    const now = performance.now();
    const limit = this.settings.lua_timeout ?? DEFAULT_LUA_TIMEOUT_S;
    const spent = (s ? s.luaCarried + now - s.luaSince : now - this.sliceStart) / 1000;
    if (spent > limit) {
      return { error: `${limit}s of Lua without a host call (an endless loop?); raise the limit with config{ lua_timeout = … } if it is meant` };
    }
    return s && now - this.sliceStart > SLICE_MS ? 'yield' : 'go';
  }
}

/** Which call of which thread did not match the log (found inside Lua, explained outside it). */
class CallMismatch extends Error {
  constructor(readonly key: string, readonly req: CallRequest) {
    super(`call ${key} does not match the log`);
  }
}

function failedEvent(reason: string, key?: string) {
  return { type: 'failed', key: key ?? null, actor: 'shop', channel: 'engine' as const, data: { reason } };
}
