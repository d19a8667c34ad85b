/**
 * How a holder reaches `shop serve`: `login` a person's login link (the pages, by a session
 * cookie), `token` an API token (a script or CI job: /api/* with Authorization: Bearer, never
 * the pages). One kind per name, so "answered by <name>" names one holder.
 */
export type AccessKind = 'login' | 'token';

/** A person with access to `shop serve` (shop access add): never their token, only its hash. */
export interface Person {
  name: string;
  kind: AccessKind;
  tokenHash: string;
  createdAt: number;
  /** Who added them (the OS user running `shop access add`). */
  createdBy: string;
  revokedAt: number | null;
  lastSeenAt: number | null;
}

/**
 * An ended web session is kept a day past its expiry: every process judges expiry by its own
 * clock, and one running behind must not see the session come back to life.
 */
export const ENDED_SESSION_KEPT_MS = 24 * 60 * 60 * 1000;

/**
 * The store's settings (values shared by every process on the store: the public URL, the
 * answer-link key) and the people who may sign in to `shop serve`. Each method one transaction.
 */
export interface AccessStore {
  getSetting(name: string): Promise<string | null>;
  setSetting(name: string, value: string): Promise<void>;
  /** Sets `name` only when absent and returns what is stored: the first writer wins. */
  initSetting(name: string, value: string): Promise<string>;
  /** ConflictError when an unrevoked person of that name exists; a revoked one is replaced. */
  addPerson(person: { name: string; tokenHash: string; by: string; kind?: AccessKind }): Promise<void>;
  /** The unrevoked person with that token hash (their last_seen_at touched, to the minute), or null. */
  findPersonByTokenHash(hash: string): Promise<Person | null>;
  /** Everyone, revoked too, by name. */
  listPeople(): Promise<Person[]>;
  /** False when no unrevoked person has that name. */
  revokePerson(name: string): Promise<boolean>;
  /**
   * Records that the web session `id` ended (logout): it is refused from now on, wherever it
   * is presented. Kept until a day past `expiresAt` (when the session is refused anyway); the
   * records past that are dropped here.
   */
  endWebSession(id: string, expiresAt: number): Promise<void>;
  /** Whether the web session `id` was ended. */
  webSessionEnded(id: string): Promise<boolean>;
}
