import type { DriveOptions } from '../engine/drive-run.js';
import type { DriveOutcome } from '../engine/outcome.js';
import { liveOwner, type Ownership } from '../engine/ownership.js';
import type { EnginePorts, Notifier } from '../engine/ports.js';
import type { Project } from '../project/project.js';
import { projectIdentity } from '../project/project-identity.js';
import { allWorkflows } from '../project/workflows.js';
import type { MetricsText } from '../metrics/prometheus.js';
import type { Liveness } from '../run-status.js';
import type { RunFilter, RunWithWaiting } from '../store/store.js';
import type { Answer, Channel, Execution, Run, RunEvent, RunOwner } from '../types.js';
import type { Worker, WorkerOptions } from '../worker/worker.js';
import type { AnswerByHandle, AnsweredAsk, AnswerRequest, AskRef, PickedAsk } from './answer-ask.js';
import { refuseAgent, type Caller } from './answer-rules.js';
import { callLog } from './call-log.js';
import { readOperations } from './read-operations.js';
import { wakeForEvent } from '../signals/wake.js';
import { openAsk, type OpenAsk } from './open-ask.js';
import { claimAsk, releaseClaim, type ClaimRequest, type ReleaseRequest } from './claim-ask.js';
import type { AnswerLink, LinkAsk } from '../access/answer-link.js';
import { addPerson, listPeople, personByToken, revokePerson } from '../access/people.js';
import type { WebSession } from '../access/session.js';
import type { AccessKind, Person } from '../store/access-store.js';
import type { ReplayCheck } from './dry-replay.js';
import type { ReviewHandOff, SessionHandOff } from './open-session.js';
import { recordReport, type ReportTarget } from './record-report.js';
import type { Signal } from '../signals/signal.js';
import type { SessionInfo } from '../store/session-store.js';
import { answeredRequest } from './pick-ask.js';
import { pruneRuns, type PruneOptions, type PrunedRun } from './prune-runs.js';
import type { RunsQuery } from './queries.js';
import type { AskView, RunView } from './run-view.js';
import type {
  ActionJson,
  AnsweredJson,
  ClaimJson,
  EventJson,
  EventSentJson,
  InboxRowJson,
  LogJson,
  RunDetailJson,
  RunJson,
  SentEventJson,
  WorkersJson,
} from './shapes.js';
import type { SendEventRequest, SentEventsQuery } from './send-event.js';
import type { EventUrlTarget } from '../access/event-url.js';
import type { StartedRun, StartRequest } from './start-run.js';
import type { QueuedRun, QueueRequest } from './queue-run.js';
import type { BulkOutcome, RunSelection } from './bulk-runs.js';
import { setQueuedPriority } from './queue-priority.js';
import type { ScheduleJson, ScheduleRequest, SlotJson } from './schedule-ops.js';
import type { FiredSchedules } from './fire-schedules.js';
import type { StopResult } from './stop-run.js';
import type { AddHookRequest } from './hooks.js';
import type { HookRefusal, HookRequest } from './hook-delivery.js';
import type { HookAddedJson, HookDeliveredJson, HookJson } from './shapes.js';

export type { RunFilter, RunWithWaiting };

/**
 * The one way a front end (the CLI, the TUI, the web server) reads or changes runs. Built once
 * per process by its composition root over the engine's ports; no front end touches the store.
 * Reads return the documented --json shapes (or the view a front end renders lines from);
 * changes are core operations, each one store transaction or the engine driving a run.
 */
export interface ShopOperations {
  /** This process, as an owner of runs, and how live another owner is judged. */
  readonly liveness: Liveness;
  /** "process 812" or "process 812 on build-2". */
  describeOwner(owner: RunOwner): string;

  // Reads
  inbox(): Promise<InboxRowJson[]>;
  runs(query: RunsQuery): Promise<{ rows: RunJson[]; total: number }>;
  runDetail(id: number, opts?: { last?: number }): Promise<RunDetailJson>;
  runView(id: number, opts?: { last?: number }): Promise<RunView>;
  log(id: number): Promise<LogJson>;
  eventsSince(id: number, afterId?: number): Promise<EventJson[]>;
  /** The run's latest `count` events, in order. */
  recentEvents(id: number, count: number): Promise<EventJson[]>;
  action(act: { command: string; runId: number; answered: AnsweredJson | null; exitCode: number }): Promise<ActionJson>;
  /** The raw records, for front ends that render their own lines. */
  run(id: number): Promise<Run | null>;
  openRuns(): Promise<Run[]>;
  listRuns(filter?: RunFilter): Promise<RunWithWaiting[]>;
  waitingAsks(): Promise<{ run: Run; execution: Execution }[]>;
  events(id: number, afterId?: number): Promise<RunEvent[]>;
  openCalls(id: number): Promise<Execution[]>;
  call(id: number, key: string): Promise<Execution | null>;
  /** The readable tail of an agent call's newest logs (its last `count` lines), or null when it has none. */
  callLog(exec: Execution, count: number): { lines: string[]; file: string } | null;
  /** Runs whose look changed after `since` (the store's time): touched, or a lease or claim ran out meanwhile. A live view's cheap read. */
  changedRuns(since: number): Promise<{ id: number; updatedAt: number }[]>;
  /** Runs with an answer recorded that no live driver will take in (its driver died first): they need resuming. */
  strandedRuns(): Promise<number[]>;
  /** The open ask a handle names, as pages show it — or the typed error answering it would give; nothing recorded. */
  openAsk(handle: string): Promise<OpenAsk>;
  /** The answer an ask got, if any. */
  answerOf(runId: number, key: string, ask: number): Promise<Answer | null>;
  /** Who answered an AAH request already (one line), or null. */
  answeredRequest(runId: number, request: string): Promise<string | null>;
  /** The run's agent sessions as the store keeps them (where each lives). */
  sessions(runId: number): Promise<SessionInfo[]>;
  /** shop workers: every registered worker on any machine, live or gone. */
  workers(): Promise<WorkersJson>;

  // Changes
  /** Refuses a caller inside an agent step (answer-rules.ts): `what` answers for a person. */
  mayAnswer(what: string): void;
  /** `onQueued`: its workflow's concurrency is reached; it waits here in the queue for its turn. */
  start(req: StartRequest, onCreated?: (run: Run) => void, onQueued?: (run: Run) => void): Promise<StartedRun>;
  /** Hands a run to the workers (queued; the same id twice is one run). */
  queue(req: QueueRequest): Promise<QueuedRun>;
  /** A queued run's new priority (ConflictError once a worker took it). */
  setPriority(runId: number, priority: number, by: string, channel: Channel): Promise<Run>;
  /** The queued runs in the order the workers take them. */
  queued(limit: number): Promise<Run[]>;
  /** This process's metrics in Prometheus' text format (the store's counts, the process's own). */
  metrics(): Promise<MetricsText>;
  /** The project's workflows by name (a start form's choices). */
  workflows(): string[];
  /** shop schedule add: checked whole (cron, zone, policies, workflow) before it is recorded. */
  addSchedule(req: ScheduleRequest): Promise<ScheduleJson>;
  /** Every schedule with its next fire times and its last decided slot. */
  schedules(): Promise<ScheduleJson[]>;
  /** A schedule's decided slots (fired or skipped, and why), newest first. */
  scheduleSlots(name: string, limit: number): Promise<SlotJson[]>;
  pauseSchedule(name: string, paused: boolean): Promise<ScheduleJson>;
  removeSchedule(name: string): Promise<void>;
  /** One run of a schedule now (trigger schedule; its slots untouched). */
  runSchedule(name: string, by: string): Promise<QueuedRun>;
  /** Drives a run here until it ends or waits (resume, after an answer, after start). */
  drive(runId: number, opts: DriveOptions, owner?: Ownership): Promise<DriveOutcome>;
  /** The ask a reference names, from one read (`several`: the front end's own refusal when a bare run id has several open). */
  pickAsk(ref: AskRef, command: string, several?: (view: AskView) => Error): Promise<PickedAsk>;
  answer(exec: Execution, req: AnswerRequest, what?: string): Promise<AnsweredAsk>;
  answerHandle(req: AnswerByHandle): Promise<AnsweredAsk>;
  /** After an answer: a live owner takes it in; without one, the run is driven here. */
  resumeAfterAnswer(
    runId: number,
    handedTo: RunOwner | null,
    opts: DriveOptions,
  ): Promise<{ handedTo: RunOwner } | { outcome: DriveOutcome; runId: number }>;
  stop(runId: number, reason: string, by: string, onWaiting?: (owner: RunOwner) => void): Promise<StopResult>;
  prune(opts: PruneOptions): Promise<PrunedRun[]>;
  /** Hands every failed or driverless run of a selection back to the workers (queued, its log kept). */
  resumeRuns(sel: RunSelection, by: string, channel: Channel, dryRun: boolean): Promise<BulkOutcome[]>;
  /** Stops every run of a selection not ended (a queued one dequeued). */
  stopRuns(sel: RunSelection, reason: string, by: string, dryRun: boolean): Promise<BulkOutcome[]>;
  openSession(run: Run, exec: Execution, by: string, otherwise: string): Promise<SessionHandOff>;
  openReview(run: Run, exec: Execution): Promise<ReviewHandOff>;
  /** shop report: an agent's report kept in the store for its call's current attempt (ConflictError when not its attempt's). */
  report(target: ReportTarget, signal: Signal): Promise<void>;
  dryReplay(runId: number, source?: string): Promise<ReplayCheck>;
  /** shop watch: one worker keeping every run moving; each run's progress goes to `notifierFor(run)`. */
  worker(opts: Omit<WorkerOptions, 'portsFor' | 'project'> & { notifierFor(run: Run): Notifier }): Promise<Worker>;
  /** "I'm on it": a person claims an open ask (its reminders and escalation wait), or lets go of it. */
  claim(req: ClaimRequest): Promise<ClaimJson>;
  release(req: ReleaseRequest): Promise<ClaimJson>;
  /** An event from the outside world (refused inside an agent step); the same sendId twice records one. */
  sendEvent(req: SendEventRequest): Promise<EventSentJson>;
  /** A POST to an event URL: its event to its run, once (ExpiredError when used or expired, UsageError when forged). */
  sendByEventUrl(token: string, data: unknown): Promise<EventSentJson>;
  /** The event URL of one run's call (the clock's time + ttlMs; UsageError without a public address). */
  eventUrl(target: EventUrlTarget, ttlMs?: number): Promise<string>;
  /** Sent events (not a run's audit trail), newest first. */
  listSentEvents(query?: SentEventsQuery): Promise<SentEventJson[]>;
  /** The engine's clock (tests move it): what claims, links and timers are judged by. */
  now(): number;

  // Webhooks: shop hook add|list|remove, POST /hooks/<name>
  /** Records a hook (every part checked first); the secret Shop made is returned this once. */
  addHook(req: AddHookRequest): Promise<HookAddedJson>;
  hooks(): Promise<HookJson[]>;
  /** NotFoundError when there is none of that name. */
  removeHook(name: string): Promise<void>;
  /** One delivery to a hook: recorded with what it did, refused (signature) with nothing recorded, or a duplicate. */
  receiveHook(req: HookRequest): Promise<HookDeliveredJson | HookRefusal>;

  // Access to shop serve: people with a login link, answer links, the server's public address
  addPerson(name: string, by: string): Promise<{ token: string }>;
  people(): Promise<Person[]>;
  /** Revokes a login link or an API token by its holder's name; says which it was. */
  revokePerson(name: string): Promise<AccessKind>;
  personByToken(token: string): Promise<{ name: string } | null>;
  /** A new API token for `name` (a script, a CI job), returned this once; the store keeps its hash. */
  addApiToken(name: string, by: string): Promise<{ token: string }>;
  /** The holder of the unrevoked API token an Authorization header carries (`Bearer <token>`), or null. */
  apiTokenHolder(authorization: unknown): Promise<{ name: string } | null>;
  /** A signed, expiring web session (12 hours, the Clock's time) for a login token's holder; null for no one's token. */
  openWebSession(token: string): Promise<WebSession | null>;
  /** The session a cookie holds while it is valid, unexpired and its person unrevoked with the same token. */
  webSession(session: string): Promise<WebSession | null>;
  /** Logout: the session is refused from now on, wherever it is presented. */
  endWebSession(session: string): Promise<void>;
  publicUrl(): Promise<string | null>;
  setPublicUrl(url: string): Promise<string>;
  verifyAnswerLink(token: string): Promise<AnswerLink>;
  answerUrl(ask: LinkAsk): Promise<string | null>;

  /** Lets the notices of people being told a run needs them go out (before the process ends). */
  settle(): Promise<void>;
}

/** The engine's operations, imported on first use (with the ports' runner, agents and watcher): a read such as `shop list` loads neither. */
const engine = async (ports: EnginePorts) => {
  const [ops] = await Promise.all([import('./engine-operations.js'), ports.loadEngine?.()]);
  return ops;
};
const access = () => import('./engine-operations.js');
/** Schedules: adding or running one checks its workflow, which needs the engine's Lua. */
const scheduleOps = async (ports?: EnginePorts) => {
  const [ops] = await Promise.all([import('./schedule-ops.js'), ports?.loadEngine?.()]);
  return ops;
};
const answers = () => import('./answer-operations.js');
/** Sent events and event URLs (zod, for the URLs' tokens): loaded by the commands that use them. */
const events = () => import('./send-event.js');
const hooks = () => import('./hooks.js');

export function shopOperations(ports: EnginePorts, project: Project, caller: Caller): ShopOperations {
  const { store } = ports;
  const eventWake = (runId: number, eventId: number) => wakeForEvent(ports.paths.signalsDir, runId, eventId);
  const reads = readOperations(ports);
  const { liveness } = reads;
  return {
    ...reads,
    callLog: (exec, count) => callLog(ports.paths.runsDir, exec, count),
    changedRuns: async (since) => {
      const changed = new Map((await store.listRuns({ changedSince: since })).map((r) => [r.id, r.updatedAt]));
      // Changes of look with no write: a lease run out, a claim aged out — as of when they happened.
      for (const { runId, at } of await store.lapsedSince(since, ports.clock.now()))
        changed.set(runId, Math.max(changed.get(runId) ?? 0, at));
      return [...changed].map(([id, updatedAt]) => ({ id, updatedAt }));
    },
    openAsk: (handle) => openAsk(store, liveness, handle),
    strandedRuns: async () => {
      const stranded: number[] = [];
      for (const id of await store.answeredRuns()) {
        const run = await store.getRun(id);
        if (run && !liveOwner(liveness, run)) stranded.push(id);
      }
      return stranded;
    },
    answeredRequest: (runId, request) => answeredRequest(store, runId, request),
    mayAnswer: (what) => refuseAgent(caller, what),
    start: async (req, onCreated, onQueued) => (await engine(ports)).startRun(ports, project, req, onCreated, onQueued),
    queue: async (req) => {
      refuseAgent(caller, 'shop run --detach');
      return (await engine(ports)).queueRun(ports, project, req);
    },
    setPriority: (runId, priority, by, channel) => setQueuedPriority(store, runId, priority, by, channel),
    queued: (limit) => store.listQueued(limit),
    workflows: () => allWorkflows(project),
    metrics: async () => (await import('./metrics.js')).metricsText(ports),
    addSchedule: async (req) => {
      refuseAgent(caller, 'shop schedule add');
      return (await scheduleOps(ports)).addSchedule(ports, project, req);
    },
    schedules: async () => (await scheduleOps()).listSchedules(ports),
    scheduleSlots: async (name, limit) => (await scheduleOps()).listScheduleSlots(ports, name, limit),
    pauseSchedule: async (name, paused) => (await scheduleOps()).pauseSchedule(ports, name, paused),
    removeSchedule: async (name) => {
      refuseAgent(caller, 'shop schedule remove');
      return (await scheduleOps()).removeSchedule(ports, name);
    },
    runSchedule: async (name, by) => {
      refuseAgent(caller, 'shop schedule run');
      return (await scheduleOps(ports)).runSchedule(ports, project, name, by);
    },
    drive: async (runId, opts, owner) => {
      // Taking the rule files' new rules is a person's decision, as an answer is.
      if (opts.acceptChanges) refuseAgent(caller, 'shop resume --accept-changes');
      return (await engine(ports)).driveRun(ports, runId, opts, owner);
    },
    pickAsk: async (ref, command, several) => (await answers()).pickAskRef(store, liveness, ref, command, several),
    answer: async (exec, req, what) => (await answers()).answerPicked(ports, caller, exec, req, what),
    answerHandle: async (req) => (await answers()).answerAsk(ports, req, caller),
    resumeAfterAnswer: async (runId, handedTo, opts) =>
      (await answers()).resumeAfterAnswer(ports, runId, handedTo, opts),
    stop: async (runId, reason, by, onWaiting) => (await engine(ports)).stopRun(ports, runId, reason, by, onWaiting),
    prune: (opts) => pruneRuns(store, project, opts),
    resumeRuns: async (sel, by, channel, dryRun) => {
      refuseAgent(caller, 'shop resume');
      return (await engine(ports)).resumeRuns(ports, sel, by, channel, dryRun);
    },
    stopRuns: async (sel, reason, by, dryRun) => (await engine(ports)).stopRuns(ports, sel, reason, by, dryRun),
    openSession: async (run, exec, by, otherwise) =>
      (await engine(ports)).openSession(ports, caller, run, exec, by, otherwise),
    openReview: async (run, exec) => (await engine(ports)).openReview(ports, run, exec),
    report: (target, signal) => recordReport(store, target, signal),
    dryReplay: async (runId, source) => (await engine(ports)).dryReplay(ports, runId, source),
    worker: async ({ notifierFor, ...opts }) =>
      new (await engine(ports)).Worker(ports, {
        ...opts,
        project: projectIdentity(project),
        portsFor: (run) => ({ ...ports, notifier: notifierFor(run) }),
        checkout: new (await import('../worker/checkout-check.js')).CheckoutCheck(
          () => ports.clock.now(),
          (path) => ports.ruleFiles?.shown(path) ?? path,
          Math.max(10_000, ports.leaseMs),
        ),
        schedules: opts.only ? undefined : scheduleFiring(ports, project),
      }),
    claim: async (req) => {
      refuseAgent(caller, 'shop claim');
      return claimAsk(ports, req);
    },
    release: async (req) => {
      refuseAgent(caller, 'shop claim');
      return releaseClaim(ports, req);
    },
    sendEvent: async (req) => (await events()).sendEvent(store, caller, req, eventWake),
    listSentEvents: async (query) => (await events()).listSentEvents(store, query),
    sendByEventUrl: async (token, data) =>
      (await events()).sendByEventUrl(store, ports.clock, caller, token, data, eventWake),
    eventUrl: async (target, ttlMs) =>
      (await import('../access/event-url.js')).eventUrl(store, ports.clock, target, ttlMs),
    now: () => ports.clock.now(),
    addHook: async (req) => {
      refuseAgent(caller, 'shop hook', 'lets the world outside start runs');
      return (await hooks()).addHook(store, project, req);
    },
    hooks: async () => (await hooks()).listHooks(store),
    removeHook: async (name) => {
      refuseAgent(caller, 'shop hook', 'lets the world outside start runs');
      return (await hooks()).removeHook(store, name);
    },
    receiveHook: async (req) => {
      // A hook's run is checked as shop run --detach checks it: with the engine's rule files.
      await ports.loadEngine?.();
      return (await import('./hook-delivery.js')).receiveHook(ports, project, req);
    },
    addPerson: (name, by) => addPerson(store, name, by),
    people: () => listPeople(store),
    revokePerson: (name) => revokePerson(store, name),
    personByToken: (token) => personByToken(store, token),
    addApiToken: async (name, by) => (await import('../access/api-token.js')).addApiToken(store, name, by),
    apiTokenHolder: async (authorization) =>
      (await import('../access/api-token.js')).apiTokenHolder(store, authorization),
    openWebSession: async (token) => (await access()).openWebSession(store, ports.clock, token),
    webSession: async (session) => (await access()).webSession(store, ports.clock, session),
    endWebSession: async (session) => (await access()).endWebSession(store, ports.clock, session),
    publicUrl: async () => (await access()).publicUrl(store),
    setPublicUrl: async (url) => (await access()).setPublicUrl(store, url),
    verifyAnswerLink: async (token) => (await access()).verifyAnswerLink(store, ports.clock, token),
    answerUrl: async (ask) => (await access()).answerUrl(store, ports.clock, ask),
    settle: () => ports.notices.settle(),
  };
}

/**
 * A worker's look at the schedules each pass. A schedule whose workflow cannot be queued (its
 * file deleted or broken) is said once, not at every pass, until it fires again.
 */
function scheduleFiring(ports: EnginePorts, project: Project): () => Promise<FiredSchedules> {
  const by = `${ports.self.host} pid ${ports.self.pid}`;
  const failing = new Map<string, string>();
  return async () => {
    const { fireDueSchedules } = await import('./fire-schedules.js');
    const fired = await fireDueSchedules(ports, project, by);
    const events = fired.events.filter((e) => {
      if (e.type !== 'schedule_failed') return failing.delete(e.schedule) || true;
      if (failing.get(e.schedule) === e.message) return false;
      failing.set(e.schedule, e.message);
      return true;
    });
    return { next: fired.next, events };
  };
}
