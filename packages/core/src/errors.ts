import type { SuggestedAction } from './suggested-action.js';
import type { AskClaim, RunHold } from './types.js';

export type { SuggestedAction };
/**
 * Typed errors, each with the exit code of DESIGN.md's CLI contract. They are mapped to
 * exit codes once, at the top of the CLI; everything below just throws the right kind.
 */
export const ExitCode = {
  ok: 0,
  failed: 1,
  usage: 2,
  waiting: 3,
  stuck: 4,
  notFound: 5,
  conflict: 6,
  /** The run waits on time, an event or another run: no person is asked; shop watch resumes it. */
  waitingOn: 7,
  interrupted: 130,
} as const;

/**
 * The base of every typed error. Its message says what is wrong in words that fit every front
 * end; what a person may do about it travels beside it as data (`actions`), worded by each
 * front end: the CLI as `shop …` lines, the web as its own words.
 */
export class ShopError extends Error {
  readonly exitCode: number = ExitCode.failed;
  readonly actions: readonly SuggestedAction[];
  constructor(message: string, actions: readonly SuggestedAction[] = []) {
    super(message);
    this.actions = actions;
  }
}

/** What a person may do about anything thrown: a ShopError's actions, none for anything else. */
export const actionsOf = (e: unknown): readonly SuggestedAction[] => (e instanceof ShopError ? e.actions : []);

/**
 * A store that cannot be used as it is: locked, read-only, unopenable, out of reach, full, or
 * not a store at all. One line naming the file (or server) and what to do (exit 1: nothing the
 * command's arguments can fix).
 */
export class StoreError extends ShopError {
  constructor(
    message: string,
    readonly file: string,
    readonly code: string,
  ) {
    super(message);
  }
}

/** Bad arguments or bad input the user can fix (exit 2). */
export class UsageError extends ShopError {
  override readonly exitCode = ExitCode.usage;
}

/** One problem found in what a person gave: where (a decision id; '' for the whole of it) and what is wrong. */
export interface ValidationIssue {
  readonly path: string;
  readonly message: string;
}

/** "d1: must be a number" — an issue as one piece of a line. */
export const issueLine = (i: ValidationIssue): string => (i.path ? `${i.path}: ${i.message}` : i.message);

/** Answers that break their decisions' rules (exit 2): every issue, as data, beside the one-line message. */
export class InvalidAnswersError extends UsageError {
  constructor(
    message: string,
    readonly issues: readonly ValidationIssue[],
    actions: readonly SuggestedAction[] = [],
  ) {
    super(message, actions);
  }
}

/** A run, workflow, agent or call that does not exist (exit 5). */
export class NotFoundError extends ShopError {
  override readonly exitCode = ExitCode.notFound;
}

/** A run that does not exist (exit 5): which one; the runs there are can be listed. */
export class RunNotFoundError extends NotFoundError {
  constructor(
    readonly runId: number,
    message = `no run ${runId}`,
  ) {
    super(message, [{ verb: 'list' }]);
  }
}

/** Already decided, or owned by another live process (exit 6). */
export class ConflictError extends ShopError {
  override readonly exitCode = ExitCode.conflict;
}

/** Someone else's claim lasts on the ask (exit 6 / HTTP 409): who, since when, until when. */
export class ClaimedError extends ConflictError {
  constructor(
    readonly handle: string,
    readonly claim: AskClaim,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Something that was valid has run out: an answer link past its time (exit 6, like any
 * conflict; a server answers 410 Gone).
 */
export class ExpiredError extends ConflictError {}

/**
 * A driver's write was refused because another driver took the run over (its lease had
 * expired: a sleeping laptop, a SIGSTOP). The driver stops without writing anything more.
 */
export class LostOwnershipError extends ShopError {
  override readonly exitCode = ExitCode.conflict;
  constructor(readonly runId: number) {
    super(
      `run ${runId} was taken over by another driver while this one was not running; this one stopped without writing`,
      [{ verb: 'status', handle: String(runId) }],
    );
  }
}

/**
 * A recorded result in a run's log does not read as JSON: the store was changed outside Shop.
 * Found when replay first takes the value; the run stays held by its driver, as when the log
 * does not read at all (shop watch backs off, then fails it under its token).
 */
export class DamagedLogError extends ShopError {
  constructor(detail: string) {
    super(`a recorded result in the run's log does not read as JSON (${detail}); the store was changed outside Shop`);
  }
}

/** The workflow made a different call than the log recorded under the same key. */
export class NonDeterminismError extends ShopError {
  constructor(
    readonly key: string,
    readonly recorded: string,
    readonly attempted: string,
  ) {
    super(
      `non-determinism at call ${key}: the log recorded ${recorded} but the workflow now ${attempted}; ` +
        `the workflow changed since this run started — restore it, guard the change with patched(), or start a new run`,
    );
  }
}

/** The run's budget_usd is spent: it ends stuck rather than start another agent (exit 4). */
export class BudgetSpent extends ShopError {
  override readonly exitCode = ExitCode.stuck;
  constructor(
    readonly budget: number,
    readonly spent: number,
  ) {
    super(`budget of $${budget.toFixed(2)} spent: $${spent.toFixed(2)}`);
  }
}

/** An agent process failed: bad exit, no signal, is_error, timeout, missing binary. */
export class AgentError extends ShopError {
  constructor(
    message: string,
    readonly metrics?: { costUsd: number | null; numTurns: number | null; durationMs: number | null },
  ) {
    super(message);
  }
}

/**
 * A call's agent session is held by another process (a person in `shop continue`, or an
 * agent at work): nothing else may start on it or answer it meanwhile (exit 6).
 */
export class SessionHeldError extends ConflictError {
  constructor(
    readonly runId: number,
    readonly key: string,
    message: string,
    actions: readonly SuggestedAction[] = [],
  ) {
    super(message, actions);
  }
}

/**
 * A rule file (the workflow, an agent definition) changed while one of the run's own steps ran:
 * the run is held (it fails, naming the files and the step) before the step's outcome is used.
 */
export class RulesChangedError extends ShopError {
  constructor(
    message: string,
    readonly held: RunHold,
  ) {
    super(message);
  }
}
