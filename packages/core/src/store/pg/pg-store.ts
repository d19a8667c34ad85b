import { ConflictError } from '../../errors.js';
import { shopHostname } from '../../host-name.js';
import { hasEnded, type AgentMetrics, type Answer, type Channel, type Run, type Timer } from '../../types.js';
import type { ClaimRef, NewClaim } from '../claim-store.js';
import { startRefusal, waitRefusal } from '../call-rules.js';
import { toExecution, toRun } from '../rows.js';
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
import { nulFreeStore } from '../nul-free.js';
import { migratePg } from './migrate-pg.js';
import { PgAccess } from './pg-access.js';
import { PgClaims } from './pg-claims.js';
import { openPgDb, WAKE_CHANNEL, type PgDbOptions, type Sql } from './pg-db.js';
import { deleteRunRows } from './pg-delete-run.js';
import { AskWrites } from './pg-ask-writes.js';
import { FastWrites } from './pg-fast-writes.js';
import { PgReads } from './pg-reads.js';
import { PgSessions } from './pg-sessions.js';
import { PgSentEvents } from './pg-sent-events.js';
import type { EventTake, NewSentEvent, SentEvent, SentEventFilter } from '../sent-event-store.js';
import type { KeptSession } from '../session-store.js';
import { PgWorkers } from './pg-workers.js';
import type { NewWorker, Wake, WorkerLoad } from '../worker-store.js';
import { PgQueue } from './pg-queue.js';
import { PgHooks } from './pg-hooks.js';
import type { NewDelivery, NewHook } from '../hook-store.js';
import { PgSchedules } from './pg-schedules.js';
import type { NewSchedule, SlotDecision } from '../schedule-store.js';
import { startedBy, type NewQueuedRun } from '../queue-store.js';
import {
  callState,
  checkHold,
  end,
  endedConflict,
  event,
  lockFenced,
  metricParams,
  notFound,
  waiting,
  whole,
} from './pg-steps.js';
import { W } from './pg-write-sql.js';

/**
 * Opens a PostgreSQL store at `url` (postgres://…), creating or migrating its schema. The
 * pool and the clock are PgDb's; the store's writes are here, each one transaction.
 */
export async function openPgStore(url: string, opts: PgDbOptions = {}): Promise<Store> {
  const db = await openPgDb(url, opts);
  try {
    await migratePg(db);
  } catch (e) {
    await db.close();
    throw e;
  }
  return nulFreeStore(new PgStore(db));
}

/**
 * The PostgreSQL adapter: reads in PgReads, every write one transaction here. A driver's
 * write is fenced by its token on the run row, which it locks (FOR UPDATE) before anything
 * else: writes to one run take their turns in that order and never deadlock; a second answer
 * waits for the first and then finds it. Writes on a step's path are one statement each
 * (FastWrites).
 */
export class PgStore extends PgReads implements Store {
  /** This host, to name a session's holder in a refusal ("process 812", or "… on other-host"). */
  private readonly host = shopHostname();
  private readonly fast = new FastWrites(this.db);
  private readonly claims = new PgClaims({
    db: this.db,
    fenced: (token, runId, fn) => this.fenced(token, runId, fn),
    event: (q, runId, e) => event(q, runId, this.now(), e),
  });
  private readonly access = new PgAccess(this.db);
  private readonly asks = new AskWrites(this.db, (token, runId, fn) => this.fenced(token, runId, fn));
  private readonly sessions = new PgSessions({
    db: this.db,
    now: () => this.now(),
    event: (q, runId, e) => event(q, runId, this.now(), e),
  });
  private readonly workers = new PgWorkers(this.db);
  private readonly queue = new PgQueue(this.db, () => this.now());
  private readonly schedules = new PgSchedules(this.db, () => this.now());
  private readonly sentEvents = new PgSentEvents({
    db: this.db,
    fenced: (token, runId, fn) => this.fenced(token, runId, fn),
    event: (q, runId, e) => event(q, runId, this.now(), e),
    endWait: (q, runId, key, result, e) => this.endingWait(q, runId, key, result, e),
  });
  private readonly hooks = new PgHooks({
    db: this.db,
    now: () => this.now(),
    queue: this.queue,
    sentEvents: this.sentEvents,
  });

  async createRun(input: NewRun): Promise<Run> {
    return this.insertRun(this.db, input, null);
  }

  /** A new run's row and its first event (a child's names its parent's call), on `q`. */
  private async insertRun(q: Sql, input: NewRun, parent: { runId: number; key: string } | null): Promise<Run> {
    const t = this.now();
    const o = input.owner;
    const data = parent
      ? { spec: input.spec, prompt: input.prompt, parent: parent.runId, parent_key: parent.key }
      : { spec: input.spec, prompt: input.prompt };
    const [row] = await q.query(W.createRun, [
      input.spec,
      input.workflowPath,
      input.workflowHash,
      input.prompt,
      input.workspace,
      input.branch,
      input.seed,
      o.token,
      o.host,
      o.pid,
      o.pidStart,
      whole(t + input.leaseMs),
      t,
      input.actor,
      JSON.stringify(data),
      WAKE_CHANNEL,
      input.rules ? JSON.stringify(input.rules) : null,
      parent?.runId ?? null,
      parent?.key ?? null,
      parent ? 'engine' : 'cli',
      JSON.stringify(input.trigger ?? startedBy(input, parent)),
    ]);
    return toRun(row!);
  }

  async claimRun(runId: number, owner: OwnerClaim, leaseMs: number, expectedToken: string | null): Promise<Run | null> {
    const [row] = await this.db.query(W.claimRun, [
      runId,
      owner.token,
      owner.host,
      owner.pid,
      owner.pidStart,
      this.now(),
      whole(leaseMs),
      expectedToken,
    ]);
    if (row) return toRun(row);
    if (!(await this.db.query(W.runExists, [runId])).length) throw notFound(runId);
    return null;
  }

  async renewLease(runId: number, token: string, leaseMs: number): Promise<boolean> {
    return (await this.db.query(W.renewLease, [runId, token, this.now(), whole(leaseMs)])).length > 0;
  }

  async releaseRun(runId: number, token: string, opts: { ifIdle: boolean }) {
    return this.db.tx(async (q) => {
      const [row] = await q.query(W.lockRun, [runId]);
      if (row?.owner_token !== token) return 'lost' as const;
      // Read after the lock: an answer committed before it is seen, and one after it waits for us.
      if (opts.ifIdle && (await q.query(W.pendingAnswer, [runId])).length) return 'answered' as const;
      await q.query(W.releaseRun, [runId, this.now(), WAKE_CHANNEL, `released:${runId}`]);
      return 'released' as const;
    });
  }

  async requestStop(runId: number, reason: string, by: string): Promise<Run> {
    return this.db.tx(async (q) => {
      const [row] = await q.query(W.lockRun, [runId]);
      if (!row) throw notFound(runId);
      const run = toRun(row);
      if (hasEnded(run)) throw endedConflict(run);
      const t = this.now();
      await event(q, runId, t, { type: 'stop_requested', actor: by, channel: 'cli', data: { reason } }, 'stop');
      const stopped = toRun((await q.query(W.requestStop, [runId, reason, by, t]))[0]!);
      // Its children stop with it (and theirs): a child left running would work on for a parent that is gone.
      for (let parents = [runId], depth = 1; parents.length && depth <= 9; depth++) {
        const next: number[] = [];
        for (const parentId of parents) {
          for (const row of await q.query(`SELECT * FROM runs WHERE parent_id = $1 ORDER BY id FOR UPDATE`, [
            parentId,
          ])) {
            const child = toRun(row);
            if (hasEnded(child)) continue;
            const why = `its parent run ${parentId} was stopped: ${reason}`;
            await event(
              q,
              child.id,
              t,
              { type: 'stop_requested', actor: by, channel: 'cli', data: { reason: why, parent: parentId } },
              'stop',
            );
            await q.query(W.requestStop, [child.id, why, by, t]);
            next.push(child.id);
          }
        }
        parents = next;
      }
      return stopped;
    });
  }

  async setWorkspace(token: string, runId: number, workspace: string, branch: string | null) {
    await this.fast.setWorkspace(token, runId, workspace, branch, this.now());
  }

  async startExecution(token: string, input: NewExecution) {
    if (!input.waiting && !input.waitOn && !input.child) return this.fast.startExecution(token, input, this.now());
    const { waiting: ask, child } = input;
    return this.fenced(token, input.runId, async (q, run) => {
      const refused = startRefusal(run, input.key, false);
      if (refused) throw refused;
      const t = this.now();
      // A child run is made with its parent's call: both recorded, or neither (the unique index refuses a second).
      const childId = child ? (await this.insertChild(q, child, input)).id : null;
      const call = childId === null ? input : { ...input, request: { ...(input.request as object), run_id: childId } };
      const made = await this.fast.insertExecution(q, token, call, t);
      const waitOn =
        input.waitOn && childId !== null ? { ...input.waitOn, runId: input.waitOn.runId ?? childId } : input.waitOn;
      if (ask) return toExecution(await waiting(q, input.runId, input.key, ask, ask.runStatus, t));
      if (waitOn) return toExecution(await this.waitingOn(q, input.runId, input.key, waitOn, waitOn.runStatus));
      return made;
    });
  }

  private async insertChild(q: Sql, child: NewRun, call: NewExecution): Promise<Run> {
    try {
      return await this.insertRun(q, child, { runId: call.runId, key: call.key });
    } catch (e) {
      // The (parent, key) index is the guard: a second child for one call is refused by the store itself.
      if ((e as { code?: string }).code === '23505')
        throw new ConflictError(`run ${call.runId} call ${call.key} has started its child run already`);
      throw e;
    }
  }

  async restartExecution(
    token: string,
    runId: number,
    key: string,
    opts: { signalPath?: string; staleHold?: string | null } = {},
  ) {
    await this.fenced(token, runId, async (q, run) => {
      const t = this.now();
      const [row] = await q.query(W.getExecution, [runId, key]);
      await checkHold(q, row, opts.staleHold ?? null, 'start an agent on it', t, this.host);
      await q.query(W.restartExecution, [runId, key, t, opts.signalPath ?? null, token, run.owner?.host ?? null]);
      await q.query(W.markRunning, [runId, t]);
      // The trail names the worker (host, pid) that drives the call on.
      await event(q, runId, t, {
        type: 'execution_restarted',
        key,
        actor: 'shop',
        channel: 'engine',
        data: { host: run.owner?.host ?? null, pid: run.owner?.pid ?? null },
      });
    });
  }

  async setActivity(token: string, runId: number, key: string, activity: Activity) {
    await this.fast.setActivity(token, runId, key, activity, this.now());
  }

  async setExecutionPid(
    token: string,
    runId: number,
    key: string,
    pid: number | null,
    pidStart: string | null,
    started?: EventInput,
  ) {
    await this.fast.setPid(token, runId, key, { pid, pidStart, started }, this.now());
  }

  async setSessionId(token: string, runId: number, key: string, sessionId: string) {
    await this.fast.setSessionId(token, runId, key, sessionId, this.now());
  }

  async completeExecution(token: string, runId: number, key: string, result: unknown, metrics?: AgentMetrics) {
    return this.fast.completeExecution(token, runId, key, result, metrics, this.now());
  }

  async markWaiting(token: string, runId: number, key: string, ask: WaitingAsk, runStatus: ActiveStatus) {
    return this.fenced(token, runId, async (q) =>
      toExecution(await waiting(q, runId, key, ask, runStatus, this.now())),
    );
  }

  async waitOn(token: string, runId: number, key: string, wait: WorldWait, runStatus: ActiveStatus) {
    return this.fenced(token, runId, async (q) => toExecution(await this.waitingOn(q, runId, key, wait, runStatus)));
  }

  private async waitingOn(q: Sql, runId: number, key: string, wait: WorldWait, runStatus: ActiveStatus) {
    const t = this.now();
    const [row] = await q.query(W.markWaitingOn, [
      runId,
      key,
      t,
      wait.kind,
      wait.until === null ? null : whole(wait.until),
      wait.runId ?? null,
    ]);
    if (!row) {
      const [call] = await q.query(W.getExecution, [runId, key]);
      throw waitRefusal(runId, key, callState(call)) ?? new ConflictError(`run ${runId} call ${key} cannot wait now`);
    }
    await q.query(W.setRunStatus, [runId, runStatus, t]);
    await event(
      q,
      runId,
      t,
      wait.runId === undefined
        ? wait.event
        : { ...wait.event, data: { ...(wait.event.data as object), run_id: wait.runId } },
    );
    if (wait.until !== null)
      await q.query(W.insertTimers, [runId, key, row.ask, ['wake'], [whole(wait.until)], ['{}']]);
    return row;
  }

  async endWait(token: string, runId: number, key: string, result: unknown, e: EventInput) {
    return this.fenced(token, runId, (q) => this.endingWait(q, runId, key, result, e));
  }

  /** Ends a call's wait on the world inside the caller's fenced transaction (endWait; a sent event's take). */
  private async endingWait(q: Sql, runId: number, key: string, result: unknown, e: EventInput): Promise<number | null> {
    const t = this.now();
    const [row] = await q.query<{ n: number }>(W.endWait, [runId, key, t, JSON.stringify(result ?? null)]);
    if (!row) return null;
    await event(q, runId, t, e);
    await event(q, runId, t, { type: 'execution_finished', key, actor: 'shop', channel: 'engine', data: null });
    return Number(row.n);
  }

  async closeExecution(token: string, runId: number, key: string, error: string | null) {
    await this.fenced(token, runId, async (q) => {
      const t = this.now();
      if (error) await q.query(W.failExecution, [runId, key, t, error, ...metricParams()]);
      else await q.query(W.closeExecution, [runId, key, t]);
    });
  }

  async cancelExecutions(token: string, runId: number, keys: string[], reason: string) {
    await this.fenced(token, runId, async (q) => {
      const t = this.now();
      await q.query(W.touchRun, [runId, t]);
      for (const key of keys) {
        if ((await q.query(W.failExecution, [runId, key, t, reason, ...metricParams()])).length) {
          await event(q, runId, t, {
            type: 'execution_cancelled',
            key,
            actor: 'shop',
            channel: 'engine',
            data: { reason },
          });
        }
      }
    });
  }

  async finishRun(token: string, runId: number, e: RunEnd) {
    return this.fenced(token, runId, (q) => end(q, runId, e, this.now()));
  }

  async setRunStatus(token: string, runId: number, status: ActiveStatus, e: EventInput) {
    await this.fenced(token, runId, async (q) => {
      const t = this.now();
      await q.query(W.setRunStatus, [runId, status, t]);
      await event(q, runId, t, e);
    });
  }

  async setRunRules(token: string, runId: number, update: RulesUpdate) {
    await this.fenced(token, runId, async (q) => {
      const t = this.now();
      if (update.rules || update.clearHeld)
        await q.query(W.setRules, [
          runId,
          update.rules ? JSON.stringify(update.rules) : null,
          Boolean(update.clearHeld),
          t,
        ]);
      for (const e of update.events ?? []) await event(q, runId, t, e);
    });
  }

  async appendEvent(token: string | null, runId: number, e: EventInput) {
    await this.fast.appendEvent(token, runId, e, this.now());
  }

  async holdSession(runId: number, key: string, hold: ContinueHold, expect: { ask: number; staleHold: string | null }) {
    return this.asks.holdSession(runId, key, hold, expect);
  }
  async releaseSession(runId: number, key: string, token: string) {
    return this.asks.releaseSession(runId, key, token);
  }
  async recordAnswer(a: Omit<Answer, 'answeredAt'>, staleHold: string | null = null) {
    return this.asks.recordAnswer(a, staleHold);
  }
  async fireTimer(token: string, timer: Timer, effect: TimerEffect) {
    return this.asks.fireTimer(token, timer, effect);
  }

  async deleteRun(runId: number): Promise<DeleteRunOutcome> {
    return this.db.tx((q) => deleteRunRows(q, runId, this.now()));
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

  // Sessions and reports across machines: pg-sessions.ts.
  async saveSession(token: string, s: Omit<KeptSession, 'savedAt'>, e?: EventInput) {
    return this.sessions.saveSession(token, s, e);
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

  async getSetting(name: string) {
    return this.access.getSetting(name);
  }
  async setSetting(name: string, value: string) {
    return this.access.setSetting(name, value);
  }
  async initSetting(name: string, value: string) {
    return this.access.initSetting(name, value);
  }
  async addPerson(p: { name: string; tokenHash: string; by: string }) {
    return this.access.addPerson(p);
  }
  async findPersonByTokenHash(hash: string) {
    return this.access.findPersonByTokenHash(hash);
  }
  async listPeople() {
    return this.access.listPeople();
  }
  async revokePerson(name: string) {
    return this.access.revokePerson(name);
  }
  async endWebSession(id: string, expiresAt: number) {
    return this.access.endWebSession(id, expiresAt);
  }
  async webSessionEnded(id: string) {
    return this.access.webSessionEnded(id);
  }

  // The worker registry, idle-run claims and wake-ups: pg-workers.ts.
  async registerWorker(w: NewWorker) {
    return this.workers.registerWorker(w);
  }
  async heartbeatWorker(id: string, load: WorkerLoad) {
    return this.workers.heartbeatWorker(id, load);
  }
  async endWorker(id: string) {
    return this.workers.endWorker(id);
  }
  async listWorkers() {
    return this.workers.listWorkers();
  }
  async claimIdleRuns(owner: OwnerClaim, leaseMs: number, limit: number, skip: readonly number[] = []) {
    return this.workers.claimIdleRuns(owner, leaseMs, limit, skip);
  }
  async listen(onWake: (w: Wake) => void) {
    return this.workers.listen(onWake);
  }

  // Events from the outside world and the runs' takes of them: pg-sent-events.ts.
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

  // The queue (shop run --detach, the API, schedules, hooks): pg-queue.ts.
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

  // Webhooks (shop hook; POST /hooks/<name>): pg-hooks.ts.
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
  // Schedules (shop schedule, the workers firing their slots): pg-schedules.ts.
  addSchedule = (input: NewSchedule) => this.schedules.addSchedule(input);
  listSchedules = () => this.schedules.listSchedules();
  getSchedule = (name: string) => this.schedules.getSchedule(name);
  setSchedulePaused = (name: string, paused: boolean) => this.schedules.setSchedulePaused(name, paused);
  removeSchedule = (name: string) => this.schedules.removeSchedule(name);
  decideSlots = (decision: SlotDecision) => this.schedules.decideSlots(decision);
  listSlots = (name: string, limit: number) => this.schedules.listSlots(name, limit);

  async close(): Promise<void> {
    await this.workers.close();
    await this.db.close();
  }

  /** A driver's write in one transaction, under the run row's lock: refused, with nothing written, unless `token` owns the run. */
  private fenced<T>(token: string, runId: number, fn: (q: Sql, run: Run) => Promise<T>): Promise<T> {
    return this.db.tx(async (q) => fn(q, await lockFenced(q, runId, token)));
  }
}
