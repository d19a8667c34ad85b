import type { EnginePorts } from '@shop/core/engine/ports';

/** What an answer link names, once its signature and expiry are checked. */
export interface VerifiedLink {
  runId: number;
  key: string;
  ask: number;
  handle: string;
  expiresAt: number;
}

/** Who may sign in, and answer links (core's access operations, bound to the store). */
export interface AccessPort {
  /** The person a login token belongs to, or null (unknown, revoked). */
  personByToken(token: string): Promise<{ name: string } | null>;
  /** Throws UsageError for a forged or garbled link, ExpiredError for an expired one. */
  verifyAnswerLink(token: string): Promise<VerifiedLink>;
}

/** "I'm on it": core's claim operations, bound to the store and clock. */
export interface ClaimsPort {
  claim(handle: string, by: string): Promise<void>;
  release(handle: string, by: string): Promise<void>;
}

/**
 * What the server is given by its composition root (`shop serve`): it never opens the store
 * or reads the environment itself, and never drives a run — a run that nobody drives after
 * an answer is handed to `resumeInBackground` (a detached `shop resume`).
 */
export interface ServerDeps {
  ports: EnginePorts;
  access: AccessPort;
  claims: ClaimsPort | null;
  publicUrl: string | null;
  resumeInBackground(runId: number): void;
  /** packages/web/static, found next to the running code. */
  staticDir: string;
  /** One line for the server's own log (stderr): failures, never request bodies. */
  log(line: string): void;
}
