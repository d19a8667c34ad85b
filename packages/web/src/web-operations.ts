import type {
  Answer,
  AnswerByHandle,
  AnswerInput,
  AnswerRequest,
  AnsweredAsk,
  BulkOutcome,
  EventJson,
  EventSentJson,
  Execution,
  HookDeliveredJson,
  HookRefusal,
  HookRequest,
  InboxRowJson,
  LogJson,
  OpenAsk,
  QueuedRun,
  QueueRequest,
  RunDetailJson,
  RunJson,
  RunSelection,
  RunsQuery,
  SendEventRequest,
  ShopOperations,
  StopResult,
} from '@shop/core';

export type { AnswerInput };

/** What an answer link names, once its signature and expiry are checked. */
export interface VerifiedLink {
  runId: number;
  key: string;
  ask: number;
  handle: string;
  expiresAt: number;
}

/**
 * Everything the server reads or changes, as core operations: the routes call these and
 * nothing else (no store, no engine). Bound once, by `webOperations`, over the ports the
 * composition root (`shop serve`) built.
 */
export interface WebOperations {
  /** The Clock port's now (tests fast-forward it). */
  now(): number;
  inbox(): Promise<InboxRowJson[]>;
  runs(query: RunsQuery): Promise<{ rows: RunJson[]; total: number }>;
  runDetail(id: number, opts?: { last?: number }): Promise<RunDetailJson>;
  log(id: number): Promise<LogJson>;
  recentEvents(id: number, count: number): Promise<EventJson[]>;
  /** Runs touched after `since` (the store's time): the live feed's one cheap read. */
  changedRuns(since: number): Promise<{ id: number; updatedAt: number }[]>;
  /** The open ask a handle names (typed errors: answered already, no such ask), nothing recorded. */
  openAsk(handle: string): Promise<OpenAsk>;
  /** Answers an ask openAsk picked (no second read to pick it). */
  answer(exec: Execution, req: AnswerRequest): Promise<AnsweredAsk>;
  /** The answer an ask got, if any (an answer link's page after use). */
  answerOf(runId: number, key: string, ask: number): Promise<Answer | null>;
  answerHandle(req: AnswerByHandle): Promise<AnsweredAsk>;
  stop(runId: number, reason: string, by: string): Promise<StopResult>;
  /** Claims an ask for `by`, taking it over from whoever holds it (the page's button says whose). */
  claim(handle: string, by: string): Promise<void>;
  release(handle: string, by: string): Promise<void>;
  /** The person a login token belongs to, or null (unknown, revoked). */
  personByToken(token: string): Promise<{ name: string } | null>;
  /** The holder of the unrevoked API token an Authorization header carries (Bearer), or null for anything else. */
  apiTokenHolder(authorization: unknown): Promise<{ name: string } | null>;
  /** A signed, expiring session for a login token's holder (the cookie's value), or null. */
  openWebSession(token: string): Promise<{ name: string; session: string; expiresAt: number } | null>;
  /** The person a session cookie signs in while it is valid, or null (forged, expired, revoked). */
  webSession(session: string): Promise<{ name: string } | null>;
  /** Logout: ends the session on the server (every copy of the cookie is refused from now on). */
  endWebSession(session: string): Promise<void>;
  /** Records an event from the outside world (core's checks: one-line UsageError, nothing recorded). */
  sendEvent(req: SendEventRequest): Promise<EventSentJson>;
  /** A POST to an event URL (ExpiredError when used or expired, UsageError when forged; nothing recorded then). */
  sendByEventUrl(token: string, data: unknown): Promise<EventSentJson>;
  /** Queues a run for the workers (the same id twice is one run). */
  queue(req: QueueRequest): Promise<QueuedRun>;
  /** The project's workflows by name. */
  workflows(): string[];
  /** Prometheus' text format: the store's counts and this process's own. */
  metrics(): Promise<{ contentType: string; text: string }>;
  resumeRuns(sel: RunSelection, by: string, channel: 'web', dryRun: boolean): Promise<BulkOutcome[]>;
  stopRuns(sel: RunSelection, reason: string, by: string, dryRun: boolean): Promise<BulkOutcome[]>;
  /** Throws UsageError for a forged or garbled link, ExpiredError for an expired one. */
  verifyAnswerLink(token: string): Promise<VerifiedLink>;
  /** One delivery to a hook (NotFoundError for an unknown hook; a refusal records nothing). */
  receiveHook(req: Omit<HookRequest, 'env'>): Promise<HookDeliveredJson | HookRefusal>;
}

/**
 * Core's operations (bound by the composition root, `shop serve`), as the server uses them;
 * `env` is shop serve's environment, where a hook's --secret-env variable is read.
 */
export function webOperations(
  ops: ShopOperations,
  env: Readonly<Record<string, string | undefined>> = {},
): WebOperations {
  return {
    now: () => ops.now(),
    inbox: () => ops.inbox(),
    runs: (query) => ops.runs(query),
    runDetail: (id, opts) => ops.runDetail(id, opts),
    log: (id) => ops.log(id),
    recentEvents: (id, count) => ops.recentEvents(id, count),
    changedRuns: (since) => ops.changedRuns(since),
    openAsk: (handle) => ops.openAsk(handle),
    answerOf: (runId, key, ask) => ops.answerOf(runId, key, ask),
    answerHandle: (req) => ops.answerHandle(req),
    answer: (exec, req) => ops.answer(exec, req),
    stop: (runId, reason, by) => ops.stop(runId, reason, by),
    claim: async (handle, by) => void (await ops.claim({ handle, by, channel: 'web', takeOver: true })),
    release: async (handle, by) => void (await ops.release({ handle, by, channel: 'web' })),
    personByToken: (token) => ops.personByToken(token),
    apiTokenHolder: (authorization) => ops.apiTokenHolder(authorization),
    openWebSession: (token) => ops.openWebSession(token),
    webSession: (session) => ops.webSession(session),
    endWebSession: (session) => ops.endWebSession(session),
    verifyAnswerLink: (token) => ops.verifyAnswerLink(token),
    sendEvent: (req) => ops.sendEvent(req),
    sendByEventUrl: (token, data) => ops.sendByEventUrl(token, data),
    queue: (req) => ops.queue(req),
    workflows: () => ops.workflows(),
    metrics: () => ops.metrics(),
    resumeRuns: (sel, by, channel, dryRun) => ops.resumeRuns(sel, by, channel, dryRun),
    stopRuns: (sel, reason, by, dryRun) => ops.stopRuns(sel, reason, by, dryRun),
    receiveHook: (req) => ops.receiveHook({ ...req, env }),
  };
}
