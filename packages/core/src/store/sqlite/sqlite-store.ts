import type Database from 'better-sqlite3';
import { createRequire } from 'node:module';
import { shopHostname } from '../../host-name.js';
import { ConflictError, LostOwnershipError, RunNotFoundError } from '../../errors.js';
import {
  hasEnded,
  type AgentMetrics,
  type Answer,
  type Channel,
  type ExecutionStatus,
  type Run,
  type Timer,
} from '../../types.js';
import { alreadyAnswered } from '../answered-line.js';
import { filesChangedEvent } from '../held-event.js';
import { migrate } from './migrate.js';
import { nulFreeStore } from '../nul-free.js';
import { SqliteReads } from './sqlite-reads.js';
import { storeError } from './sqlite-errors.js';
import { roundUsd, toAnswer, toExecution, toRun, type Row } from '../rows.js';
import { deleteRunRows } from './sqlite-delete-run.js';
import { prepareStoreFile } from './store-file.js';
import * as access from './sqlite-access.js';
import type { AccessKind } from '../access-store.js';
import * as workers from './sqlite-workers.js';
import type { NewWorker, WorkerLoad } from '../worker-store.js';
import { SqliteClaims } from './sqlite-claims.js';
import { SqliteSessions } from './sqlite-sessions.js';
import { SqliteQueue } from './sqlite-queue.js';
import { SqliteSchedules } from './sqlite-schedules.js';
import type { NewSchedule, SlotDecision } from '../schedule-store.js';
import { startedBy } from '../queue-store.js';
import type { NewQueuedRun } from '../queue-store.js';
import { SqliteSentEvents } from './sqlite-sent-events.js';
import { SqliteHooks } from './sqlite-hooks.js';
import type { NewDelivery, NewHook } from '../hook-store.js';
import type { EventTake, NewSentEvent, SentEvent, SentEventFilter } from '../sent-event-store.js';
import type { KeptSession } from '../session-store.js';
import type { ClaimRef, NewClaim } from '../claim-store.js';
import { sessionHeld } from '../../engine/session-hold.js';
import { completeRefusal, startRefusal, waitRefusal } from '../call-rules.js';
import type {
  Activity,
  ActiveStatus,
  ContinueHold,
  DeleteRunOutcome,
  EventInput,
  NewExecution,
  NewRun,
  OwnerClaim,
  RulesUpdate,
  RunEnd,
  Store,
  TimerEffect,
  WaitingAsk,
  WorldWait,
} from '../store.js';

/**
 * better-sqlite3 is CommonJS: required, not imported — an import of it has Node parse its source
 * for its exports first (a few ms of every command's start-up).
 */
const Sqlite = createRequire(import.meta.url)('better-sqlite3') as typeof Database;

/** How far down a stop follows children (past call_workflow's depth bound). */
const MAX_STOP_DEPTH = 9;

/**
 * Opens (creating or migrating if needed) a store at `file`. A store that cannot be used
 * (locked, read-only, not a database …) is a StoreError naming the file and what to do.
 */
export function openSqliteStore(file: string, now: () => number = Date.now): Store {
  let db: Database.Database | undefined;
  try {
    prepareStoreFile(file);
    db = new Sqlite(file);
    // Before anything that may need a lock, so every statement waits for a busy store.
    db.pragma('busy_timeout = 5000');
    // Before the first table: a new store's pages are 2 KiB, not 4. A step's commit writes its few
    // touched pages whole to the WAL, and each of the schema's ~40 tables and indexes takes a page
    // while empty: half the bytes of both. (A store made before keeps its size: this is a no-op.)
    db.pragma('page_size = 2048');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // The store is read through a memory map, not a read() per 2 KiB page: a resume reading a
    // long run's trail made ~3,000 system calls, a third of the read's time (writes are unchanged).
    db.pragma('mmap_size = 268435456');
    migrate(db);
    return nulFreeStore(new SqliteStore(db, now));
  } catch (e) {
    db?.close();
    throw storeError(e, file, true) ?? e;
  }
}

const metricCols = (m?: Partial<AgentMetrics>) => ({
  cost: m?.costUsd == null ? null : roundUsd(m.costUsd),
  turns: m?.numTurns ?? null,
  duration: m?.durationMs ?? null,
  input: m?.tokens?.input ?? null,
  output: m?.tokens?.output ?? null,
  cacheRead: m?.tokens?.cacheRead ?? null,
  cacheWrite: m?.tokens?.cacheWrite ?? null,
});
const ownerCols = (o: OwnerClaim, leaseUntil: number) => ({
  token: o.token,
  host: o.host,
  pid: o.pid,
  pidStart: o.pidStart,
  leaseUntil,
});

/** The SQLite adapter: reads in SqliteReads, every write one immediate transaction here. */
class SqliteStore extends SqliteReads implements Store {
  /** One transaction wrapper for every write (better-sqlite3 builds a new one per transaction() call). */
  private readonly inTx = this.db.transaction((fn: () => unknown) => fn());
  /** This host, to name a session's holder in a refusal ("process 812", or "… on other-host"). */
  private readonly host = shopHostname();
  private readonly claims = new SqliteClaims({
    db: this.db,
    now: () => this.now(),
    tx: (fn) => this.tx(fn),
    fenced: (token, runId, fn) => this.fenced(token, runId, fn),
    event: (runId, e) => this.event(runId, e),
  });
  private readonly sessions = new SqliteSessions({
    db: this.db,
    now: () => this.now(),
    tx: (fn) => this.tx(fn),
    event: (runId, e) => this.event(runId, e),
  });
  private readonly queue = new SqliteQueue({
    db: this.db,
    now: () => this.now(),
    tx: (fn) => this.tx(fn),
    event: (runId, e) => this.event(runId, e),
  });
  private readonly schedules = new SqliteSchedules({
    db: this.db,
    now: () => this.now(),
    tx: (fn) => this.tx(fn),
    insertQueued: (input, extra) => this.queue.insertQueued(input, extra),
  });
  private readonly sentEvents = new SqliteSentEvents({
    db: this.db,
    now: () => this.now(),
    tx: (fn) => this.tx(fn),
    fenced: (token, runId, fn) => this.fenced(token, runId, fn),
    event: (runId, e) => this.event(runId, e),
    endWait: (runId, key, result, e) => this.endingWait(runId, key, result, e),
  });
  private readonly hooks = new SqliteHooks({
    db: this.db,
    now: () => this.now(),
    tx: (fn) => this.tx(fn),
    queue: this.queue,
    sentEvents: this.sentEvents,
  });

  async createRun(input: NewRun): Promise<Run> {
    return this.tx(() => this.mustRun(this.insertRun(input, null)));
  }

  /** A new run's row and its first event (a child's names its parent's call). */
  private insertRun(input: NewRun, parent: { runId: number; key: string } | null): number {
    const t = this.now();
    const { owner, leaseMs, rules, trigger, ...rest } = input;
    const id = Number(
      this.stmt.insertRun.run({
        ...rest,
        rules: rules ? JSON.stringify(rules) : null,
        trigger: JSON.stringify(trigger ?? startedBy(input, parent)),
        ...ownerCols(owner, t + leaseMs),
        parentId: parent?.runId ?? null,
        parentKey: parent?.key ?? null,
        t,
      }).lastInsertRowid,
    );
    const data = parent
      ? { spec: input.spec, prompt: input.prompt, parent: parent.runId, parent_key: parent.key }
      : { spec: input.spec, prompt: input.prompt };
    this.event(id, { type: 'run_started', actor: input.actor, channel: parent ? 'engine' : 'cli', data });
    return id;
  }

  async claimRun(runId: number, owner: OwnerClaim, leaseMs: number, expectedToken: string | null): Promise<Run | null> {
    return this.tx(() => {
      this.mustRun(runId);
      const t = this.now();
      const changed = this.stmt.claimRun.run({
        ...ownerCols(owner, t + leaseMs),
        runId,
        expected: expectedToken,
        t,
      }).changes;
      return changed ? this.mustRun(runId) : null;
    });
  }

  async renewLease(runId: number, token: string, leaseMs: number): Promise<boolean> {
    return this.stmt.renewLease.run({ leaseUntil: this.now() + leaseMs, runId, token }).changes > 0;
  }

  async releaseRun(runId: number, token: string, opts: { ifIdle: boolean }) {
    return this.tx(() => {
      if ((this.stmt.ownerToken.get(runId) as Row | undefined)?.owner_token !== token) return 'lost' as const;
      if (opts.ifIdle && this.stmt.pendingAnswer.get(runId)) return 'answered' as const;
      this.stmt.releaseRun.run(this.now(), runId, token);
      return 'released' as const;
    });
  }

  async requestStop(runId: number, reason: string, by: string): Promise<Run> {
    return this.tx(() => {
      const run = this.mustRun(runId);
      if (hasEnded(run))
        throw new ConflictError(`run ${runId} has already ended (${run.status}${run.reason ? `: ${run.reason}` : ''})`);
      const t = this.now();
      this.stmt.requestStop.run(reason, by, t, t, runId);
      this.event(runId, { type: 'stop_requested', actor: by, channel: 'cli', data: { reason } });
      // Its children stop with it: a child left running would work on for a parent that is gone.
      const stopChildren = (parentId: number, depth: number) => {
        for (const child of (this.stmt.children.all(parentId) as Row[]).map(toRun)) {
          if (hasEnded(child) || depth > MAX_STOP_DEPTH) continue;
          const why = `its parent run ${parentId} was stopped: ${reason}`;
          this.stmt.requestStop.run(why, by, t, t, child.id);
          this.event(child.id, {
            type: 'stop_requested',
            actor: by,
            channel: 'cli',
            data: { reason: why, parent: parentId },
          });
          stopChildren(child.id, depth + 1);
        }
      };
      stopChildren(runId, 1);
      return this.mustRun(runId);
    });
  }

  async setWorkspace(token: string, runId: number, workspace: string, branch: string | null) {
    this.fenced(token, runId, () => void this.stmt.setWorkspace.run(workspace, branch, this.now(), runId));
  }

  async startExecution(token: string, input: NewExecution) {
    return this.fenced(token, input.runId, (fence) => {
      // The fence's read has the run's status: the whole row is not read (nor its rules parsed) on a step's path.
      const refused = startRefusal(
        { id: input.runId, status: fence.status as Run['status'] },
        input.key,
        this.stmt.callState.get(input.runId, input.key) !== undefined,
      );
      if (refused) throw refused;
      const t = this.now();
      const next = (isWaiting(fence.status) ? this.stmt.nextCallAndEventRunning : this.stmt.nextCallAndEvent).get(
        t,
        input.runId,
      ) as Row;
      const { waiting, waitOn: wait, child, ...rest } = input;
      // A child run is made with its parent's call: both recorded, or neither (the unique index refuses a second).
      const childId = child ? this.insertRun(child, { runId: input.runId, key: input.key }) : null;
      const request = childId === null ? input.request : { ...(input.request as object), run_id: childId };
      const waitOn = wait && childId !== null ? { ...wait, runId: wait.runId ?? childId } : wait;
      const held = !waiting && !waitOn && input.kind === 'run';
      const row = this.stmt.insertExecution.get({
        ...rest,
        seq: Number(next.n),
        t,
        request: JSON.stringify(request ?? null),
        holdKind: held ? 'agent' : null,
        holdToken: held ? token : null,
        holdBy: held ? input.agent : null,
        holdHost: held ? fence.owner_host : null,
        holdSince: held ? t : null,
      }) as Row;
      // The call's kind, agent and session are on its row: the trail says when, and which driver.
      const driver = driverOf(fence);
      this.insertEvent(input.runId, Number(next.event), t, {
        type: 'execution_started',
        key: input.key,
        actor: 'shop',
        channel: 'engine',
        data: childId === null ? driver : { ...driver, child: childId },
      });
      if (!waiting && !waitOn) return toExecution(row);
      if (waiting) this.waiting(input.runId, input.key, waiting, waiting.runStatus);
      else if (waitOn) this.waitingOn(input.runId, input.key, waitOn, waitOn.runStatus);
      return toExecution(this.stmt.getExecution.get(input.runId, input.key) as Row);
    });
  }

  async restartExecution(
    token: string,
    runId: number,
    key: string,
    opts: { signalPath?: string; staleHold?: string | null } = {},
  ) {
    this.fenced(token, runId, (fence) => {
      this.checkHold(runId, key, opts.staleHold ?? null, 'start an agent on it');
      this.stmt.restartExecution.run({ t: this.now(), runId, key, signalPath: opts.signalPath ?? null });
      this.stmt.takeAgentHold.run({ token, runId, key, t: this.now() });
      this.stmt.markRunning.run(this.now(), runId);
      this.event(runId, {
        type: 'execution_restarted',
        key,
        actor: 'shop',
        channel: 'engine',
        data: driverOf(fence),
      });
    });
  }

  async setActivity(token: string, runId: number, key: string, activity: Activity) {
    this.fenced(token, runId, () => {
      const t = this.now();
      this.stmt.setActivity.run({
        turns: activity.numTurns ?? null,
        duration: activity.durationMs ?? null,
        activity: activity.text,
        t,
        runId,
        key,
      });
      this.stmt.touchRun.run(t, runId);
    });
  }

  async setExecutionPid(
    token: string,
    runId: number,
    key: string,
    pid: number | null,
    pidStart: string | null,
    started?: EventInput,
  ) {
    this.fenced(token, runId, () => {
      this.stmt.setPid.run({ pid, pidStart, t: this.now(), runId, key });
      if (started) this.event(runId, started);
    });
  }

  async setSessionId(token: string, runId: number, key: string, sessionId: string) {
    this.fenced(token, runId, () => void this.stmt.setSessionId.run({ sessionId, t: this.now(), runId, key }));
  }

  async completeExecution(token: string, runId: number, key: string, result: unknown, metrics?: AgentMetrics) {
    return this.fenced(token, runId, (fence) => {
      const refused = completeRefusal(runId, key, this.call(runId, key));
      if (refused) throw refused;
      const t = this.now();
      const next = (
        isWaiting(fence.status) ? this.stmt.nextDeliveryAndEventRunning : this.stmt.nextDeliveryAndEvent
      ).get(t, runId) as Row;
      const delivered = Number(next.n);
      this.stmt.completeExecution.run({
        ...metricCols(metrics),
        result: JSON.stringify(result ?? null),
        delivered,
        t,
        runId,
        key,
      });
      this.insertEvent(runId, Number(next.event), t, {
        type: 'execution_finished',
        key,
        actor: 'shop',
        channel: 'engine',
        data: summarize(result),
      });
      return delivered;
    });
  }

  async markWaiting(token: string, runId: number, key: string, ask: WaitingAsk, runStatus: ActiveStatus) {
    return this.fenced(token, runId, () => {
      const refused = waitRefusal(runId, key, this.call(runId, key));
      if (refused) throw refused;
      this.waiting(runId, key, ask, runStatus);
      return toExecution(this.stmt.getExecution.get(runId, key) as Row);
    });
  }

  async waitOn(token: string, runId: number, key: string, wait: WorldWait, runStatus: ActiveStatus) {
    return this.fenced(token, runId, () => {
      const refused = waitRefusal(runId, key, this.call(runId, key));
      if (refused) throw refused;
      this.waitingOn(runId, key, wait, runStatus);
      return toExecution(this.stmt.getExecution.get(runId, key) as Row);
    });
  }

  private waitingOn(runId: number, key: string, wait: WorldWait, runStatus: ActiveStatus) {
    const t = this.now();
    this.stmt.markWaitingOn.run({ kind: wait.kind, until: wait.until, waitRun: wait.runId ?? null, t, runId, key });
    const event =
      wait.runId === undefined
        ? wait.event
        : { ...wait.event, data: { ...(wait.event.data as object), run_id: wait.runId } };
    this.stmt.setRunStatus.run(runStatus, t, runId);
    this.event(runId, event);
    const ask = Number((this.stmt.getExecution.get(runId, key) as Row).ask);
    if (wait.until !== null) this.stmt.insertTimer.run(runId, key, ask, 'wake', wait.until, '{}');
  }

  async endWait(token: string, runId: number, key: string, result: unknown, event: EventInput) {
    return this.fenced(token, runId, () => this.endingWait(runId, key, result, event));
  }

  /** Ends a call's wait on the world inside the caller's fenced transaction (endWait; a sent event's take). */
  private endingWait(runId: number, key: string, result: unknown, event: EventInput): number | null {
    const row = this.stmt.getExecution.get(runId, key) as Row | undefined;
    if (row?.status !== 'waiting') return null;
    const t = this.now();
    this.stmt.wakeFired.run(t, runId, key);
    this.event(runId, event);
    const delivered = Number((this.stmt.nextDelivery.get(t, runId) as Row).n);
    this.stmt.completeExecution.run({
      ...metricCols(undefined),
      result: JSON.stringify(result ?? null),
      delivered,
      t,
      runId,
      key,
    });
    this.event(runId, { type: 'execution_finished', key, actor: 'shop', channel: 'engine', data: null });
    return delivered;
  }

  async closeExecution(token: string, runId: number, key: string, error: string | null) {
    this.fenced(token, runId, () => {
      const t = this.now();
      if (error) this.stmt.failExecution.run({ ...metricCols(), error, t, runId, key });
      else this.stmt.closeExecution.run(t, t, runId, key);
    });
  }

  async cancelExecutions(token: string, runId: number, keys: string[], reason: string) {
    this.fenced(token, runId, () => {
      this.stmt.touchRun.run(this.now(), runId);
      for (const key of keys) {
        const t = this.now();
        if (this.stmt.failExecution.run({ ...metricCols(), error: reason, t, runId, key }).changes) {
          this.event(runId, { type: 'execution_cancelled', key, actor: 'shop', channel: 'engine', data: { reason } });
        }
      }
    });
  }

  async finishRun(token: string, runId: number, end: RunEnd) {
    return this.fenced(token, runId, () => this.end(runId, end));
  }

  async setRunStatus(token: string, runId: number, status: ActiveStatus, event: EventInput) {
    this.fenced(token, runId, () => {
      this.stmt.setRunStatus.run(status, this.now(), runId);
      this.event(runId, event);
    });
  }

  async setRunRules(token: string, runId: number, update: RulesUpdate) {
    this.fenced(token, runId, () => {
      const t = this.now();
      if (update.rules) this.stmt.setRules.run(JSON.stringify(update.rules), t, runId);
      if (update.clearHeld) this.stmt.clearHeld.run(t, runId);
      for (const e of update.events ?? []) this.event(runId, e);
    });
  }

  async appendEvent(token: string | null, runId: number, event: EventInput) {
    if (token) this.fenced(token, runId, () => this.event(runId, event));
    else
      this.tx(() => {
        this.mustRun(runId);
        this.event(runId, event);
      });
  }

  async holdSession(runId: number, key: string, hold: ContinueHold, expect: { ask: number; staleHold: string | null }) {
    this.tx(() => {
      const row = this.stmt.getExecution.get(runId, key) as Row | undefined;
      const first = this.stmt.getAnswer.get(runId, key, expect.ask) as Row | undefined;
      if (first) throw new ConflictError(alreadyAnswered(toAnswer(first)));
      if (!row || row.status !== 'waiting_human' || Number(row.ask) !== expect.ask || hasEnded(this.mustRun(runId))) {
        throw new ConflictError(`run ${runId} call ${key} is no longer waiting for a person`, [
          { verb: 'status', handle: String(runId) },
        ]);
      }
      this.checkHold(runId, key, expect.staleHold, 'open it');
      const t = this.now();
      this.stmt.takeContinueHold.run({ ...hold, runId, key, t });
      this.sessions.clearReport(runId, key);
      this.event(runId, {
        type: 'session_opened',
        key,
        actor: hold.by,
        channel: 'continue',
        data: { ask: expect.ask, pid: hold.pid },
      });
    });
  }

  async releaseSession(runId: number, key: string, token: string) {
    this.tx(() => {
      if (this.stmt.releaseHold.run({ runId, key, token, t: this.now() }).changes)
        this.event(runId, { type: 'session_closed', key, actor: 'shop', channel: 'continue' });
    });
  }

  async recordAnswer(answer: Omit<Answer, 'answeredAt'>, staleHold: string | null = null) {
    return this.tx(() => {
      this.checkHold(answer.runId, answer.key, staleHold, 'answer');
      const { answeredAt } = this.answer(answer);
      return { ...answer, answeredAt, owner: this.mustRun(answer.runId).owner };
    });
  }

  async fireTimer(token: string, timer: Timer, effect: TimerEffect) {
    return this.fenced(token, timer.runId, () => {
      const t = this.now();
      if (!this.stmt.timerFired.run(t, timer.id).changes) return false;
      const exec = this.stmt.getExecution.get(timer.runId, timer.key) as Row | undefined;
      // Answered (or ended) since it was set: nothing to do — an answer recorded but not yet
      // taken in counts, or a timeout would end a run a person has just answered.
      if (hasEnded(this.mustRun(timer.runId)) || exec?.status !== 'waiting_human' || Number(exec.ask) !== timer.ask)
        return false;
      if (this.stmt.getAnswer.get(timer.runId, timer.key, timer.ask)) return false;
      this.event(timer.runId, effect.event);
      if (effect.answer) this.answer(effect.answer);
      if (effect.next)
        this.stmt.insertTimer.run(
          timer.runId,
          timer.key,
          timer.ask,
          effect.next.kind,
          effect.next.dueAt,
          JSON.stringify(effect.next.data),
        );
      if (effect.end) this.end(timer.runId, effect.end);
      return true;
    });
  }

  async claimAsk(claim: NewClaim, opts: { ttlMs: number }) {
    return this.claims.claimAsk(claim, opts);
  }
  async releaseClaim(ref: ClaimRef) {
    return this.claims.releaseClaim(ref);
  }
  async putOffTimer(token: string, timer: Timer) {
    return this.claims.putOffTimer(token, timer);
  }

  // Sessions and reports across machines: sqlite-sessions.ts.
  async saveSession(token: string, s: Omit<KeptSession, 'savedAt'>, event?: EventInput) {
    return this.sessions.saveSession(token, s, event);
  }
  async loadSession(runId: number, sessionId: string) {
    return this.sessions.loadSession(runId, sessionId);
  }
  async listSessions(runId: number) {
    return this.sessions.listSessions(runId);
  }
  async recordReport(runId: number, key: string, signalPath: string, body: string) {
    return this.sessions.recordReport(runId, key, signalPath, body);
  }
  async getReport(runId: number, key: string, signalPath: string) {
    return this.sessions.getReport(runId, key, signalPath);
  }

  // Events from the outside world and the runs' takes of them: sqlite-sent-events.ts.
  async sendEvent(e: NewSentEvent) {
    return this.sentEvents.sendEvent(e);
  }
  async listSentEvents(filter?: SentEventFilter) {
    return this.sentEvents.listSentEvents(filter);
  }
  async takeEvent(token: string, take: EventTake) {
    return this.sentEvents.takeEvent(token, take);
  }
  async endEventWait(token: string, take: EventTake, valueOf: (e: SentEvent) => unknown) {
    return this.sentEvents.endEventWait(token, take, valueOf);
  }
  async eventReadyRuns() {
    return this.sentEvents.eventReadyRuns();
  }

  // The queue (shop run --detach, the API, schedules, hooks): sqlite-queue.ts.
  async queueRun(input: NewQueuedRun) {
    return this.queue.queueRun(input);
  }
  async claimQueuedRuns(...args: Parameters<Store['claimQueuedRuns']>) {
    return this.queue.claimQueuedRuns(...args);
  }
  async setPriority(runId: number, priority: number, by: string, channel: Channel) {
    return this.queue.setPriority(runId, priority, by, channel);
  }
  async requeue(runId: number, by: string, channel: Channel) {
    return this.queue.requeue(runId, by, channel);
  }
  async dequeue(runId: number, reason: string, by: string) {
    return this.queue.dequeue(runId, reason, by);
  }
  async listQueued(limit: number) {
    return this.queue.listQueued(limit);
  }

  // Webhooks (shop hook; POST /hooks/<name>): sqlite-hooks.ts.
  async addHook(hook: NewHook) {
    return this.hooks.addHook(hook);
  }
  async getHook(name: string) {
    return this.hooks.getHook(name);
  }
  async listHooks() {
    return this.hooks.listHooks();
  }
  async removeHook(name: string) {
    return this.hooks.removeHook(name);
  }
  async recordDelivery(d: NewDelivery) {
    return this.hooks.recordDelivery(d);
  }
  // Schedules (shop schedule, the workers firing their slots): sqlite-schedules.ts.
  addSchedule = (input: NewSchedule) => this.schedules.addSchedule(input);
  listSchedules = () => this.schedules.listSchedules();
  getSchedule = (name: string) => this.schedules.getSchedule(name);
  setSchedulePaused = (name: string, paused: boolean) => this.schedules.setSchedulePaused(name, paused);
  removeSchedule = (name: string) => this.schedules.removeSchedule(name);
  decideSlots = (decision: SlotDecision) => this.schedules.decideSlots(decision);
  listSlots = (name: string, limit: number) => this.schedules.listSlots(name, limit);

  async close() {
    this.db.close();
  }

  // Settings and people (shop serve's access): sqlite-access.ts.
  private readonly accessTx = <T>(fn: () => T): T => this.tx(fn);
  async getSetting(name: string) {
    return access.getSetting(this.db, name);
  }
  async setSetting(name: string, value: string) {
    access.setSetting(this.db, this.accessTx, this.now(), name, value);
  }
  async initSetting(name: string, value: string) {
    return access.initSetting(this.db, this.accessTx, this.now(), name, value);
  }
  async addPerson(p: { name: string; tokenHash: string; by: string; kind?: AccessKind }) {
    access.addPerson(this.db, this.accessTx, this.now(), p);
  }
  async findPersonByTokenHash(hash: string) {
    return access.findPersonByTokenHash(this.db, this.accessTx, this.now(), hash);
  }
  async listPeople() {
    return access.listPeople(this.db);
  }
  async revokePerson(name: string) {
    return access.revokePerson(this.db, this.accessTx, this.now(), name);
  }
  async endWebSession(id: string, expiresAt: number) {
    access.endWebSession(this.db, this.accessTx, this.now(), id, expiresAt);
  }
  async webSessionEnded(id: string) {
    return access.webSessionEnded(this.db, id);
  }

  // The worker registry (shop watch, shop workers): sqlite-workers.ts. No listen: SQLite has no
  // push, the signal-file watcher wakes workers on one machine.
  async registerWorker(w: NewWorker) {
    workers.registerWorker(this.db, this.accessTx, this.now(), w);
  }
  async heartbeatWorker(id: string, load: WorkerLoad) {
    return workers.heartbeatWorker(this.db, this.now(), id, load);
  }
  async endWorker(id: string) {
    workers.endWorker(this.db, id);
  }
  async listWorkers() {
    return workers.listWorkers(this.db);
  }
  async claimIdleRuns(owner: OwnerClaim, leaseMs: number, limit: number, skip: readonly number[] = []) {
    return workers.claimIdleRuns(this.db, this.accessTx, () => this.now(), owner, leaseMs, limit, skip);
  }

  /**
   * A write transaction that takes the write lock first (BEGIN IMMEDIATE): a deferred one that
   * reads, then writes fails at once with "database is locked" when another process wrote
   * meanwhile — busy_timeout does not apply to that upgrade.
   */
  async deleteRun(runId: number): Promise<DeleteRunOutcome> {
    return this.tx(() => deleteRunRows(this.db, runId, this.now()));
  }

  private tx<T>(fn: () => T): T {
    return this.inTx.immediate(fn) as T;
  }

  /** A driver's write: refused, with nothing written, unless `token` still owns the run. */
  private fenced<T>(token: string, runId: number, fn: (fence: Row) => T): T {
    return this.tx(() => {
      const row = this.stmt.ownerToken.get(runId) as Row | undefined;
      if (!row) throw new RunNotFoundError(runId);
      if (row.owner_token !== token) throw new LostOwnershipError(runId);
      return fn(row);
    });
  }

  /**
   * One process per session: a person's shop continue holding the call refuses whatever else
   * would start on it or answer it — unless it is the hold the caller judged dead (its
   * process gone), which is cleared here, in the same transaction.
   */
  private checkHold(runId: number, key: string, staleHold: string | null, doing: string) {
    const row = this.stmt.getExecution.get(runId, key) as Row | undefined;
    if (!row || row.hold_kind !== 'continue') return;
    if (staleHold !== null && row.hold_token === staleHold) {
      this.stmt.clearHold.run(runId, key);
      this.event(runId, {
        type: 'session_closed',
        key,
        actor: 'shop',
        channel: 'engine',
        data: { why: 'its shop continue process is gone' },
      });
      return;
    }
    const exec = toExecution(row);
    throw sessionHeld(runId, exec, exec.hold!, this.host, doing);
  }

  /** A call's state, as the refusals (call-rules.ts) read it. */
  private call(runId: number, key: string): { status: ExecutionStatus; delivered: number | null } | null {
    const row = this.stmt.callState.get(runId, key) as Row | undefined;
    return row
      ? { status: row.status as ExecutionStatus, delivered: row.delivered == null ? null : Number(row.delivered) }
      : null;
  }

  private waiting(runId: number, key: string, ask: WaitingAsk, runStatus: ActiveStatus) {
    const t = this.now();
    this.stmt.markWaiting.run({
      ...metricCols(ask.metrics),
      waitingFor: ask.waitingFor,
      awaiting: ask.awaiting,
      claimTimeout: ask.claimTimeout ?? null,
      askDecisions: ask.decisions?.length ? JSON.stringify(ask.decisions) : null,
      t,
      runId,
      key,
    });
    this.stmt.setRunStatus.run(runStatus, t, runId);
    this.event(runId, {
      type: 'waiting',
      key,
      actor: 'shop',
      channel: 'engine',
      data: { waiting_for: ask.waitingFor, awaiting: ask.awaiting },
    });
    const number = Number((this.stmt.getExecution.get(runId, key) as Row).ask);
    for (const timer of ask.timers ?? [])
      this.stmt.insertTimer.run(runId, key, number, timer.kind, timer.dueAt, JSON.stringify(timer.data));
  }

  /** First answer wins: an answer for an ask already answered, or no longer waited on, is a conflict. */
  private answer(answer: Omit<Answer, 'answeredAt'>): { answeredAt: number } {
    const first = this.stmt.getAnswer.get(answer.runId, answer.key, answer.ask) as Row | undefined;
    if (first) throw new ConflictError(alreadyAnswered(toAnswer(first)));
    const run = this.mustRun(answer.runId);
    const exec = this.stmt.getExecution.get(answer.runId, answer.key) as Row | undefined;
    if (hasEnded(run) || !exec || exec.status !== 'waiting_human' || Number(exec.ask) !== answer.ask) {
      throw new ConflictError(`run ${answer.runId} call ${answer.key} is no longer waiting for this answer`);
    }
    const t = this.now();
    this.stmt.insertAnswer.run({ ...answer, decisions: answer.decisions ? JSON.stringify(answer.decisions) : null, t });
    this.event(answer.runId, {
      type: 'human_answered',
      key: answer.key,
      actor: answer.responder,
      channel: answer.channel,
      data: {
        ask: answer.ask,
        verdict: answer.verdict,
        status: answer.status,
        message: answer.message,
        decisions: answer.decisions,
      },
    });
    return { answeredAt: t };
  }

  /** Ends the run unless it has ended; its open calls (running, waiting) fail with the reason. */
  private end(runId: number, end: RunEnd): boolean {
    const t = this.now();
    const reason = end.reason ?? null;
    if (
      end.failedKey &&
      this.stmt.failExecution.run({ ...metricCols(end.metrics), error: reason, t, runId, key: end.failedKey }).changes
    ) {
      this.event(runId, {
        type: 'execution_failed',
        key: end.failedKey,
        actor: 'shop',
        channel: 'engine',
        data: { error: reason },
      });
    }
    if (end.held && this.stmt.setHeld.run(JSON.stringify(end.held), runId).changes) {
      this.event(runId, filesChangedEvent(end.held));
    }
    const changed = this.stmt.endRun.run({
      status: end.status,
      reason,
      result: end.result === undefined ? null : JSON.stringify(end.result),
      t,
      runId,
    }).changes;
    if (!changed) return false;
    // Calls still open end with the run: running ones (their processes were killed first), and
    // waiting ones — nothing waits on an ended run, so no reader takes one for an open ask.
    this.stmt.failOpen.run(
      `the run ended ${end.status}${reason ? `: ${reason}` : ''}`,
      t,
      t,
      runId,
      end.held?.key ?? null,
    );
    this.event(runId, end.event);
    return true;
  }

  private event(runId: number, e: EventInput) {
    const t = this.now();
    this.insertEvent(runId, Number((this.stmt.nextEvent.get(t, runId) as Row).n), t, e);
  }

  /** An event whose id the caller took from the run's row (runs.events) in the same transaction. */
  private insertEvent(runId: number, id: number, t: number, e: EventInput) {
    this.stmt.insertEvent.run(
      runId,
      id,
      e.key ?? null,
      e.type,
      e.actor,
      e.channel,
      e.data ? JSON.stringify(e.data) : null,
      t,
    );
  }
}

/** A run waiting (on the world or a person) goes on when a call starts or a result is handed over. */
const isWaiting = (status: unknown) => status === 'waiting' || status === 'waiting_human';

/** Which worker drives the run — host and pid, from the fence's read — for the trail of a call it starts. */
function driverOf(fence: Row): { host: string; pid: number } {
  return { host: String(fence.owner_host), pid: Number(fence.owner_pid) };
}

function summarize(result: unknown): Record<string, unknown> | null {
  if (result && typeof result === 'object' && 'status' in result) {
    const r = result as Record<string, unknown>;
    return { status: r.status, summary: r.summary ?? r.reason ?? null };
  }
  return null;
}
