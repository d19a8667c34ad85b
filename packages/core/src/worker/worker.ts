import { setMaxListeners } from 'node:events';
import { actionsOf, ConflictError, type SuggestedAction } from '../errors.js';
import { driveRun } from '../engine/drive-run.js';
import { fireDueTimers } from '../engine/fire-timers.js';
import type { DriveOutcome } from '../engine/outcome.js';
import { liveOwner, Ownership, ownerRecord, storeLiveness } from '../engine/ownership.js';
import { pinnedElsewhere } from '../engine/session-keeper.js';
import type { EnginePorts } from '../engine/ports.js';
import { Slots } from '../engine/slots.js';
import { capText } from '../text.js';
import type { Run } from '../types.js';
import type { Wake } from '../store/worker-store.js';
import type { CheckoutCheck } from './checkout-check.js';
import { ResumeBackoff } from './resume-backoff.js';
import { liveWorkerCount, WorkerRegistration } from './registration.js';
import { openWorkerWakes, type WorkerWakes } from './wakes.js';
import type { FiredSchedules, ScheduleEvent } from '../operations/fire-schedules.js';

/** At most one pass over the open runs this often (wakes in between are folded into it). */
const PASS_EVERY_MS = 200;

/** Why a held run is driven on: an answer, a stop, a takeover, its timer, an event it waits on. */
type ResumeWhy = 'answer' | 'stop' | 'interrupted' | 'timer' | 'event' | 'child' | 'queued';

/** What the worker tells its operator, a line (or a JSON line) each. */
export type WorkerEvent =
  /** `queued`: a queued run taken to start (its turn came and this worker had room). */
  | { type: 'took'; run: Run; how: 'waiting' | 'interrupted' | 'queued' }
  | { type: 'resuming'; run: Run; why: ResumeWhy }
  | { type: 'outcome'; run: Run; outcome: DriveOutcome }
  | { type: 'timers'; run: Run; ended: boolean }
  /** `actions`: what a person may do about it, as data (the front end words them after the message). */
  | { type: 'error'; run: Run; message: string; actions: readonly SuggestedAction[]; retryInMs: number | null }
  | { type: 'gave_up'; run: Run; reason: string }
  /** A run this worker leaves to the others: its checkout lacks the run's workflow or workspace. */
  | { type: 'left'; run: Run; reason: string }
  | { type: 'stopping'; active: number; held: number }
  /** A pass could not read the store (a database restarting, a network cut): told once, tried again at the next wake. */
  | { type: 'pass_failed'; message: string; actions: readonly SuggestedAction[]; retryInMs: number }
  | { type: 'pass_recovered' }
  /** A schedule's slots decided by this worker: a run queued, slots skipped, or its workflow not queueable. */
  | { type: 'schedule'; event: ScheduleEvent };

export interface WorkerOptions {
  /** Agents and commands running at once across all runs (--max-parallel). */
  maxParallel: number;
  /** Runs replayed and driven at once (each holds a Lua VM): extra work waits. */
  maxDrivers: number;
  /** Only these runs (shop watch <id>…). */
  only: number[] | null;
  /** SIGTERM / SIGINT: take no new work, stop the agents (runs stay resumable), let go. */
  signal: AbortSignal;
  report(event: WorkerEvent): void;
  /** Registered and listening: from now on no wake is missed (shop watch says "watching" then). */
  onReady?(): void;
  /** The engine's ports for one run (its progress lines name the run). */
  portsFor(run: Run): EnginePorts;
  /** The project's identity, recorded with the worker in the store's registry (shop workers). */
  project: string;
  /**
   * Decides every unpaused schedule's due slots (queuing their runs) by the store's clock, and
   * says when the next slot is (the store's clock). Not given watching named runs: those fire nothing.
   */
  schedules?: () => Promise<FiredSchedules>;
  /** What this checkout can drive (absent: every run; twins without a disk). */
  checkout?: CheckoutCheck;
  /** How a run whose resume keeps failing is retried (tests shorten it). */
  resumeBackoff?: { firstMs: number; maxMs: number; attempts: number };
}

interface Held {
  owner: Ownership;
}

/**
 * `shop watch`: one process owning many runs. It takes every run no live driver holds —
 * interrupted ones to drive on, waiting ones to hold, so answers recorded anywhere are left
 * to it — and drives a held run again when an answer, a stop or a timer concerns it. A
 * second worker shares the work: claims are atomic, leases live. A run whose resume keeps
 * failing is left alone for a while (backing off), then failed: it never stalls the others.
 */
export class Worker {
  private readonly held = new Map<number, Held>();
  /** Held runs taken while running (their driver gone) and not driven yet: a backing-off one waits here. */
  private readonly interrupted = new Set<number>();
  private readonly active = new Map<number, { done: Promise<void>; abort: AbortController }>();
  private readonly agents: Slots;
  private readonly drivers: Slots;
  private readonly backoff: ResumeBackoff;
  /** The open runs this worker may hold or drive at once, set by each pass. */
  private share = Infinity;

  constructor(
    private readonly ports: EnginePorts,
    private readonly opts: WorkerOptions,
  ) {
    this.agents = new Slots(opts.maxParallel);
    this.drivers = new Slots(opts.maxDrivers);
    this.backoff = new ResumeBackoff(opts.resumeBackoff);
    // Every run waiting for a driver's slot listens for the shutdown: many, by design.
    setMaxListeners(0, opts.signal);
  }

  /**
   * Until the signal — or, watching named runs (`only`), until every one of them has ended: a
   * pass over the open runs on every wake (a signal file, an answer's rescan tick).
   */
  async run(): Promise<void> {
    await this.ports.loadEngine?.();
    const registry = await WorkerRegistration.start(this.ports, {
      project: this.opts.project,
      maxParallel: this.opts.maxParallel,
      load: () => {
        const left = this.opts.checkout?.left() ?? [];
        // Without runs left the load reads as before: no heartbeat for a change that is none.
        return {
          runsHeld: this.held.size + this.active.size,
          agents: this.agents.inUse,
          ...(left.length ? { left } : {}),
        };
      },
    });
    let wakes: WorkerWakes;
    try {
      wakes = this.wakes = await openWorkerWakes(this.ports, this.sweepMs(), (w) => this.wokenFor(w));
    } catch (e) {
      await registry.end();
      throw e;
    }
    const stopped = new Promise<void>((resolve) =>
      this.opts.signal.addEventListener('abort', () => resolve(), { once: true }),
    );
    this.opts.onReady?.();
    try {
      while (!this.opts.signal.aborted) {
        const started = Date.now();
        if (await this.passOrSay(wakes)) break;
        registry.loadChanged();
        await Promise.race([wakes.next(), stopped]);
        // A burst of signal files (many agents finishing) makes one pass, not one each.
        const rest = PASS_EVERY_MS - (Date.now() - started);
        if (rest > 0) await Promise.race([new Promise((r) => setTimeout(r, rest)), stopped]);
      }
    } finally {
      await wakes.close();
      await this.shutdown();
      await registry.end();
    }
  }

  private failing: string | null = null;
  private wakes: WorkerWakes | null = null;

  /**
   * An answer, a stop or an event pushed for a run this worker holds waiting: driven on now, without
   * waiting for a pass (passes come at most every PASS_EVERY_MS). True when taken care of.
   */
  private wokenFor(w: Wake): boolean {
    // A run queued: taken now if there is room, without a whole pass (its other reads wait for the next).
    if (w.kind === 'queued' && !this.opts.only && !this.opts.signal.aborted) return this.takeQueuedNow();
    if (
      w.runId === null ||
      (w.kind !== 'answer' && w.kind !== 'stop' && w.kind !== 'event') ||
      this.opts.signal.aborted
    )
      return false;
    const runId = w.runId;
    const held = this.held.get(runId);
    if (!held && w.kind === 'event') return this.takeForEvent(runId);
    if (
      !held ||
      held.owner.lost.aborted ||
      this.active.has(runId) ||
      this.backoff.waiting(runId, this.ports.clock.now())
    )
      return false;
    const why = w.kind;
    void this.ports.store
      .getRun(runId)
      .then((run) => {
        // A pass may have driven or let it go meanwhile.
        if (run && this.held.get(runId) === held && !this.active.has(runId)) this.drive(run, held.owner, why);
      })
      .catch(() => this.wakes?.wake());
    return true;
  }

  /** A queued run's wake: a claim now (one at a time; a pass looks when one is under way or it fails). */
  private takeQueuedNow(): boolean {
    if (this.claimingQueued) return false;
    this.claimingQueued = true;
    void this.takeQueued()
      .catch(() => this.wakes?.wake())
      .finally(() => (this.claimingQueued = false));
    return true;
  }
  private claimingQueued = false;

  /**
   * An event sent to a run waiting on the world, which no one holds while it waits: taken and
   * driven on now to take the event, without waiting for a pass. False (a pass looks) when it is
   * being driven already or held back; a run another driver holds is that driver's.
   */
  private takeForEvent(runId: number): boolean {
    if (this.active.has(runId) || this.backoff.waiting(runId, this.ports.clock.now())) return false;
    void this.ports.store
      .getRun(runId)
      .then(async (run) => {
        if (!run || run.status !== 'waiting' || this.active.has(runId) || this.held.has(runId) || this.lacks(run))
          return;
        const held = await this.take(run, true);
        if (held && this.held.get(runId) === held && !this.active.has(runId)) this.drive(run, held.owner, 'event');
      })
      .catch(() => this.wakes?.wake());
    return true;
  }

  /**
   * A pass whose store is out of reach does not end the worker: a database restart or a network
   * cut is said once, and the next wake (the sweep at the latest) tries again.
   */
  private async passOrSay(wakes: WorkerWakes): Promise<boolean> {
    try {
      const done = await this.pass(wakes);
      if (this.failing !== null) this.opts.report({ type: 'pass_recovered' });
      this.failing = null;
      return done;
    } catch (e) {
      const message = capText((e as Error)?.message ?? String(e), 600);
      if (message !== this.failing)
        this.opts.report({ type: 'pass_failed', message, actions: actionsOf(e), retryInMs: this.sweepMs() });
      this.failing = message;
      return false;
    }
  }

  /** Leases run out unseen (a dead driver writes nothing): a sweep every third of one finds them. */
  private sweepMs(): number {
    return Math.max(1_000, this.ports.leaseMs / 3);
  }

  /** One pass; true when the named runs have all ended (nothing more to watch). */
  private async pass(wakes: WorkerWakes): Promise<boolean> {
    const { store, clock } = this.ports;
    // Every idle run at once, in one transaction (SKIP LOCKED on PostgreSQL); named runs one by one.
    // Runs asleep are many and need nothing until their time: read only when a wake timer is due (below).
    const dueTimers = await store.dueTimers(store.now());
    const woken = new Set(dueTimers.filter((t) => t.kind === 'wake').map((t) => t.runId));
    // A call waiting on an event that was sent (a wake missed, or sent before it waited): driven on to take it.
    const evented = new Set(await store.eventReadyRuns());
    // A run waiting on a child that has ended (driven here or by anyone): read and driven on to take the end in.
    const childEnded = new Set(await store.childEndedRuns());
    const listed = await store.listOpenRuns(this.opts.only ? {} : { awake: true });
    const listedIds = new Set(listed.map((r) => r.id));
    for (const id of [...woken, ...evented, ...childEnded]) {
      if (listedIds.has(id)) continue;
      listedIds.add(id);
      const run = await store.getRun(id);
      if (run?.status === 'waiting') listed.push(run);
    }
    // Its fair share of the open runs among the live workers: the first to wake on a burst would
    // otherwise take it all while the others idle. A worker silent for a lease no longer counts,
    // so the others' shares grow to take its runs. Named runs (shop watch <id>) are all its own.
    this.share = this.opts.only ? Infinity : Math.ceil(listed.length / (await this.liveWorkers()));
    const leaving = this.leaving(listed);
    const took = this.opts.only ? new Map<number, Run>() : await this.takeIdle(leaving);
    // Due slots queue their runs before the queue is looked at: this pass may take them.
    const nextSlot = await this.fireSchedules();
    const stillQueued = await this.takeQueued();
    const runs = listed.filter((r) => !this.opts.only || this.opts.only.includes(r.id)).map((r) => took.get(r.id) ?? r);
    if (this.opts.only && !runs.length && !this.active.size && !stillQueued) return true;
    const open = new Set(runs.map((r) => r.id));
    for (const [id, h] of this.held) {
      if (open.has(id)) continue;
      // Ended elsewhere (a stop carried out, say): let it go, its lease no longer renewed.
      this.held.delete(id);
      this.interrupted.delete(id);
      await h.owner.release(false).catch(() => undefined);
    }
    const answered = new Set(await store.answeredRuns());
    // Judged by the store's clock: every worker (and machine) agrees when a timer is due.
    const due = new Set(dueTimers.map((t) => t.runId));
    for (const run of runs) {
      if (this.opts.signal.aborted) return false;
      if (this.active.has(run.id)) continue;
      // Asleep (waiting on the world) and not due: it needs no owner, so none holds it and renews a lease
      // (a worker may have many thousands); its time, a stop or a dead driver's lease brings it here.
      if (
        run.status === 'waiting' &&
        !woken.has(run.id) &&
        !evented.has(run.id) &&
        !childEnded.has(run.id) &&
        !run.stop &&
        !this.held.has(run.id)
      )
        continue;
      // Held runs keep their leases themselves meanwhile.
      if (this.backoff.waiting(run.id, clock.now()) || leaving.has(run.id)) continue;
      try {
        await this.look(
          run,
          answered.has(run.id),
          due.has(run.id),
          woken.has(run.id) ? 'timer' : evented.has(run.id) ? 'event' : childEnded.has(run.id) ? 'child' : null,
        );
      } catch (e) {
        // One run's trouble (a store row that does not read) is that run's, not the worker's.
        await this.failed(run, null, e);
      }
    }
    // One timer to the earliest due row of the runs not ended (asleep ones too), not a poll per run.
    const nextTimer = await store.nextTimer(this.opts.only ? [...open] : undefined);
    // A slot is on the store's clock; the wake timer runs on the engine's.
    const slotAt = nextSlot === null ? null : clock.now() + (nextSlot - store.now());
    wakes.nextDue(nextTimer === null ? slotAt : slotAt === null ? nextTimer : Math.min(nextTimer, slotAt));
    wakes.nextLapse(this.nextLapse(runs));
    return false;
  }

  /**
   * In how long (ms) the first lease held by another driver runs out, or null: a driver that
   * died writes nothing, so the worker wakes then to take its runs over, within one lease of
   * its last renewal — not at the next sweep after.
   */
  private nextLapse(runs: Run[]): number | null {
    const now = this.ports.store.now();
    let first: number | null = null;
    for (const r of runs) {
      if (!r.owner || this.held.has(r.id) || this.active.has(r.id)) continue;
      const left = r.owner.leaseUntil - now;
      if (left >= 0 && (first === null || left < first)) first = left;
    }
    return first;
  }

  /**
   * The open runs no live driver holds that this checkout cannot drive (no workflow file, no
   * workspace here): left to the others, said once each (and in shop workers), never claimed.
   */
  private leaving(listed: Run[]): Set<number> {
    const check = this.opts.checkout;
    const leaving = new Set<number>();
    if (!check) return leaving;
    const liveness = storeLiveness(this.ports);
    for (const run of listed) {
      if (this.held.has(run.id) || this.active.has(run.id)) continue;
      if (liveOwner(liveness, run)) check.forget(run.id);
      else if (this.lacks(run)) leaving.add(run.id);
    }
    return leaving;
  }

  /** Whether this checkout cannot drive the run (a run newly left is said). */
  private lacks(run: Run): boolean {
    const check = this.opts.checkout;
    return !!check?.why(run, (l) => this.opts.report({ type: 'left', run, reason: l.reason }));
  }

  /** Takes the runs no one holds (no owner, or a lease run out by the store's clock) and holds them here, to drive or to wait. */
  private async takeIdle(leaving: Set<number>): Promise<Map<number, Run>> {
    // No more than it can drive now, nor than its share.
    const room = Math.min(this.opts.maxDrivers - this.active.size, this.roomInShare());
    if (this.opts.signal.aborted || room <= 0) return new Map();
    const token = this.ports.newToken();
    const took = await this.ports.store.claimIdleRuns(ownerRecord(this.ports, token), this.ports.leaseMs, room, [
      ...leaving,
    ]);
    for (const run of took) {
      this.hold(run, Ownership.adopt(this.ports, run));
      if (run.status === 'running') this.interrupted.add(run.id);
      this.opts.report({ type: 'took', run, how: run.status === 'running' ? 'interrupted' : 'waiting' });
    }
    return new Map(took.map((r) => [r.id, r]));
  }

  /**
   * Takes queued runs to start (true while a named one still waits for its turn), as many as it has drivers free (highest priority, then oldest;
   * the store holds back a run whose workflow or key is at its concurrency), and drives them.
   */
  private async takeQueued(): Promise<boolean> {
    const room = this.opts.maxDrivers - this.active.size - this.interrupted.size;
    if (this.opts.signal.aborted || room <= 0) return this.opts.only !== null;
    const owner = () => ownerRecord(this.ports, this.ports.newToken());
    const { store, leaseMs } = this.ports;
    const accept = (run: Run) => !this.lacks(run);
    // Named runs (shop watch <id>…): each queued one taken in its turn; true while one still waits.
    let waits = false;
    const took: Run[] = [];
    if (this.opts.only)
      for (const id of this.opts.only) {
        if ((await store.getRun(id))?.status !== 'queued') continue;
        const [run] = took.length < room ? await store.claimQueuedRuns(owner(), leaseMs, 1, id, accept) : [];
        if (run) took.push(run);
        else waits = true;
      }
    else took.push(...(await store.claimQueuedRuns(owner(), leaseMs, room, undefined, accept)));
    for (const run of took) {
      this.opts.report({ type: 'took', run, how: 'queued' });
      this.drive(run, Ownership.adopt(this.ports, run), 'queued');
    }
    return waits;
  }

  /** The schedules' due slots decided (runs queued); the next slot's time (the store's clock), or null. */
  private async fireSchedules(): Promise<number | null> {
    if (!this.opts.schedules || this.opts.only || this.opts.signal.aborted) return null;
    const { next, events } = await this.opts.schedules();
    for (const event of events) this.opts.report({ type: 'schedule', event });
    return next;
  }

  /** How many more runs this worker may take before it holds its share. */
  private roomInShare(): number {
    return this.share - (this.held.size + this.active.size);
  }

  /** How many workers share this store's runs now (this one at least). */
  private async liveWorkers(): Promise<number> {
    return Math.max(1, await liveWorkerCount(this.ports));
  }

  private async look(
    run: Run,
    answered: boolean,
    due: boolean,
    woke: 'timer' | 'event' | 'child' | null,
  ): Promise<void> {
    const held = this.held.get(run.id) ?? (await this.take(run));
    if (!held || held.owner.lost.aborted) return;
    // Taken running with the idle ones (not a snapshot that read a run this worker drove meanwhile): driven on now.
    // A call's wake timer due (a sleep's time came): driven on, and the call's look fires it.
    const why = this.interrupted.has(run.id) ? 'interrupted' : run.stop ? 'stop' : answered ? 'answer' : woke;
    if (why) this.drive(run, held.owner, why);
    else if (due) await this.fireTimers(run, held);
  }

  /**
   * Takes a run no live driver holds: an interrupted one is driven on, a waiting one held. The
   * fair share bounds only the waiting ones: a run whose driver died mid-work is taken over
   * within its lease by whoever sees it, however many runs that worker holds already.
   */
  private async take(run: Run, woken = false): Promise<Held | null> {
    // A run woken by its event has work now: whoever heard it takes it (the claim lets one win),
    // whatever its share — a share counts the awake runs, and asleep ones are not read.
    if (liveOwner(storeLiveness(this.ports), run) || (run.status !== 'running' && !woken && this.roomInShare() <= 0))
      return null;
    // Its agent session lives only on another host (over the store's cap): that host's worker takes it.
    if (await pinnedElsewhere(this.ports, run.id)) return null;
    let owner: Ownership;
    try {
      owner = await Ownership.claim(this.ports, run);
    } catch (e) {
      if (e instanceof ConflictError) return null;
      throw e;
    }
    if (run.status === 'running') {
      this.opts.report({ type: 'took', run, how: 'interrupted' });
      this.drive(run, owner, 'interrupted');
      return null;
    }
    const held = this.hold(run, owner);
    // Asleep and due: taken to be driven on at once ("resuming (its time came)" says so), not held for a person.
    if (run.status !== 'waiting') this.opts.report({ type: 'took', run, how: 'waiting' });
    return held;
  }

  /** Holds a waiting run; its lease renews itself, and the run is let go the moment it is lost. */
  private hold(run: Run, owner: Ownership): Held {
    const held = { owner };
    this.held.set(run.id, held);
    owner.lost.addEventListener(
      'abort',
      () => {
        if (this.held.get(run.id) !== held) return;
        this.held.delete(run.id);
        this.interrupted.delete(run.id);
      },
      { once: true },
    );
    return held;
  }

  private async fireTimers(run: Run, held: Held) {
    const { fired, ended } = await fireDueTimers(this.ports, run, held.owner.token);
    if (fired) this.opts.report({ type: 'timers', run, ended });
    if (!ended) return;
    this.held.delete(run.id);
    await held.owner.release(false);
  }

  /** Replays the run and drives it on, holding it again if it waits (at most maxDrivers at once). */
  private drive(run: Run, owner: Ownership, why: ResumeWhy) {
    this.held.delete(run.id);
    this.interrupted.delete(run.id);
    const abort = new AbortController();
    const done = (async () => {
      if (!(await this.drivers.acquire(this.opts.signal))) return void (await owner.release(false));
      try {
        if (why !== 'interrupted' && why !== 'queued') this.opts.report({ type: 'resuming', run, why });
        const outcome = await driveRun(
          this.opts.portsFor(run),
          run.id,
          { wait: false, keep: true, signal: abort.signal, sharedSlots: this.agents },
          owner,
        );
        this.backoff.succeeded(run.id);
        this.opts.report({ type: 'outcome', run, outcome });
        if (outcome.status === 'waiting_human') this.hold(run, owner);
        // Waiting on the world only: let go (no lease to renew while it sleeps); its wake timer brings it back.
        else if (outcome.status === 'waiting' && (await owner.release(true)) === 'answered') this.hold(run, owner);
        // A child's end wakes its parent: a pass now, not at the next sweep.
        else if (outcome.status !== 'waiting' && run.parentId !== null) this.wakes?.wake();
      } catch (e) {
        await this.failed(run, owner, e);
      } finally {
        this.drivers.release();
        this.active.delete(run.id);
        // Room again: a queued run (of this one's workflow, maybe) may be taken now, not at the next sweep.
        this.wakes?.wake();
      }
    })();
    this.active.set(run.id, { done, abort });
  }

  /**
   * A resume that threw (not a run that failed: the engine could not drive it at all). The
   * run is tried again later, each time later (exponential, capped); after the last attempt
   * it is failed with the reason — the end and its event in one transaction, under the
   * owner's token — so it neither stalls the worker nor is retried a thousand times.
   */
  private async failed(run: Run, owner: Ownership | null, e: unknown): Promise<void> {
    const message = capText((e as Error)?.message ?? String(e), 600);
    const next = this.backoff.failed(run.id, this.ports.clock.now());
    if (next.giveUp && owner && !this.opts.signal.aborted) {
      const reason = `shop watch could not resume it ${next.failures} times: ${message}`;
      const ended = await this.ports.store
        .finishRun(owner.token, run.id, {
          status: 'failed',
          reason,
          event: { type: 'failed', actor: 'shop', channel: 'engine', data: { reason, resume_failures: next.failures } },
        })
        .catch(() => false);
      if (ended) {
        this.backoff.succeeded(run.id);
        this.opts.report({ type: 'gave_up', run, reason });
      }
    } else
      this.opts.report({
        type: 'error',
        run,
        message,
        actions: actionsOf(e),
        retryInMs: next.giveUp && !owner ? null : next.retryInMs,
      });
    if (owner) await owner.release(false).catch(() => undefined);
    this.held.delete(run.id);
    this.interrupted.delete(run.id);
  }

  /** Stops the agents of runs being driven (they stay resumable) and lets every run go. */
  private async shutdown() {
    // Named runs that all ended: nothing to stop, and the watch says so itself.
    if (this.opts.signal.aborted || this.active.size || this.held.size)
      this.opts.report({ type: 'stopping', active: this.active.size, held: this.held.size });
    for (const a of this.active.values()) a.abort.abort();
    await Promise.all([...this.active.values()].map((a) => a.done));
    for (const h of this.held.values()) await h.owner.release(false).catch(() => undefined);
    this.held.clear();
    this.interrupted.clear();
  }
}
