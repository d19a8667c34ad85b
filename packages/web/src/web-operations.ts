import { verifyAnswerLink } from '@shop/core/access/answer-link';
import { personByToken } from '@shop/core/access/people';
import type { AnswerInput } from '@shop/core/decisions/build-answer';
import type { EnginePorts } from '@shop/core/engine/ports';
import { ConflictError } from '@shop/core/errors';
import { answerAsk, type AnswerByHandle, type AnsweredAsk } from '@shop/core/operations/answer-ask';
import { claimAsk, releaseClaim } from '@shop/core/operations/claim-ask';
import { eventsSince, inboxJson, logJson, runDetailJson, runsJson, type RunsQuery } from '@shop/core/operations/queries';
import type { EventJson, InboxRowJson, LogJson, PendingJson, RunDetailJson, RunJson } from '@shop/core/operations/shapes';
import { stopRun, type StopResult } from '@shop/core/operations/stop-run';
import type { Answer } from '@shop/core/types';
import { openAsk } from './open-ask.js';

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
  eventsSince(id: number, afterId?: number): Promise<EventJson[]>;
  /** Runs touched after `since` (the store's time): the live feed's one cheap read. */
  changedRuns(since: number): Promise<{ id: number; updatedAt: number }[]>;
  /** The open ask a handle names (typed errors: answered already, no such ask), nothing recorded. */
  openAsk(handle: string): Promise<{ runId: number; pending: PendingJson }>;
  /** The answer an ask got, if any (an answer link's page after use). */
  answerOf(runId: number, key: string, ask: number): Promise<Answer | null>;
  answerHandle(req: AnswerByHandle): Promise<AnsweredAsk>;
  stop(runId: number, reason: string, by: string): Promise<StopResult>;
  /** Claims an ask for `by`, taking it over from whoever holds it (the page's button says whose). */
  claim(handle: string, by: string): Promise<void>;
  release(handle: string, by: string): Promise<void>;
  /** The person a login token belongs to, or null (unknown, revoked). */
  personByToken(token: string): Promise<{ name: string } | null>;
  /** Throws UsageError for a forged or garbled link, ExpiredError for an expired one. */
  verifyAnswerLink(token: string): Promise<VerifiedLink>;
}

/** Core's operations over the engine's ports, for the server. */
export function webOperations(ports: EnginePorts): WebOperations {
  const { store, clock } = ports;
  const claim = (handle: string, by: string) => claimAsk(ports, { handle, by, channel: 'web' });
  return {
    now: () => clock.now(),
    inbox: () => inboxJson(store),
    runs: (query) => runsJson(store, query),
    runDetail: (id, opts) => runDetailJson(store, id, opts),
    log: (id) => logJson(store, id),
    eventsSince: (id, afterId) => eventsSince(store, id, afterId),
    changedRuns: async (since) => (await store.listRuns({ changedSince: since })).map((r) => ({ id: r.id, updatedAt: r.updatedAt })),
    openAsk: (handle) => openAsk(store, handle),
    answerOf: (runId, key, ask) => store.getAnswer(runId, key, ask),
    answerHandle: (req) => answerAsk(ports, req),
    stop: (runId, reason, by) => stopRun(ports, runId, reason, by),
    claim: async (handle, by) => {
      try {
        await claim(handle, by);
      } catch (e) {
        if (!(e instanceof ConflictError)) throw e;
        if (!(await releaseClaim(ports, { handle, by, force: true, channel: 'web' })).released) throw e;
        await claim(handle, by);
      }
    },
    release: async (handle, by) => void (await releaseClaim(ports, { handle, by, channel: 'web' })),
    personByToken: (token) => personByToken(store, token),
    verifyAnswerLink: (token) => verifyAnswerLink(store, clock, token),
  };
}
