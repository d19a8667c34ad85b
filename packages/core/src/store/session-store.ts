import type { EventInput } from './store-inputs.js';

/** An agent call's Claude Code transcript as the store keeps it. */
export interface KeptSession {
  runId: number;
  key: string;
  sessionId: string;
  /** The machine it was last kept from: where it lives when it is pinned. */
  host: string;
  /** The transcript's size and digest (of the plain text), as kept. */
  bytes: number;
  sha256: string;
  /** The transcript, gzip-compressed; null when it was over the cap: pinned to `host`. */
  gz: Buffer | null;
  savedAt: number;
}

/** What `shop status` shows of a kept session (no transcript). */
export type SessionInfo = Omit<KeptSession, 'gz'> & { gzBytes: number | null };

/**
 * Sessions and reports across machines: a call's transcript kept after each agent step so
 * any worker can resume it, and `shop report`'s body kept for the call's attempt so a report
 * is read without a shared disk.
 */
export interface SessionStore {
  /**
   * Keeps (replaces) a call's transcript. `token` is the run's owner or the person's hold on
   * that call's session (shop continue): LostOwnershipError otherwise, nothing written. `event`
   * goes on the trail in the same transaction.
   */
  saveSession(token: string, session: Omit<KeptSession, 'savedAt'>, event?: EventInput): Promise<void>;
  loadSession(runId: number, sessionId: string): Promise<KeptSession | null>;
  /** The run's kept sessions, oldest first, without their transcripts. */
  listSessions(runId: number): Promise<SessionInfo[]>;
  /**
   * `shop report`: the agent's report for its call's attempt, named by its signal path (that
   * attempt's secret). Taken only while that is the call's current attempt and the call is
   * running, or waiting with a person in its session (shop continue); false otherwise.
   */
  recordReport(runId: number, key: string, signalPath: string, body: string): Promise<boolean>;
  /** The report recorded for the call's attempt at `signalPath`, if any. */
  getReport(runId: number, key: string, signalPath: string): Promise<string | null>;
}
