import { nulFreeText } from '../../store/nul-free.js';
import type { AgentCalls, StepContext } from '../../engine/step-context.js';
import type { Settled } from '../../engine/outcome.js';
import type { RunEnd } from '../../store/store.js';
import type { CallKind, Execution, ReplayRecord } from '../../types.js';

/**
 * One host function a workflow calls, defined in one place: how Lua calls it, how it is
 * recorded and matched on replay, how a person reads it, and what it does in the world.
 * Adding a primitive is one file of these and one line in registry.ts.
 */
export interface CallDefinition<R extends { type: string }> {
  /** The Lua global, and the request's `type`. */
  readonly name: R['type'];
  /** How its execution is recorded; null: it is not (stuck() ends the run instead). */
  readonly kind: CallKind | null;
  /** `call`: the thread suspends until the world answers; `branches`: parallel(); `end`: ends the run. */
  readonly flow: 'call' | 'branches' | 'end';
  /** As an error names it: "run(agent [, prompt | opts])". */
  readonly usage: string;
  /** Arguments it takes at most (one past the last would be ignored without a word: refused). */
  readonly max: number;
  /** Added to the too-many-arguments error. */
  readonly hint?: string;
  /** Holds one of the run's max_parallel slots while it works in the world (agents, commands). */
  readonly working?: boolean;
  /** Its Lua arguments, read as JS: the request, or the error to raise at the call's line. */
  parse(args: unknown[]): R | string;
  /** A bug in the script this request shows (not a condition to handle): the run fails at the line, past any pcall. */
  fatal?(req: R): string | null;
  /** The call as `shop log` reads it: the readable part of its fingerprint. */
  describe(req: R): string;
  /** Its recorded identity, compared on replay; the description unless its effect has more to it. */
  fingerprint?(req: R): string;
  /** What runs recorded before fingerprints carried a hash stored for it. */
  legacyFingerprint?(req: R): string;
  /** The call as a non-determinism error quotes it. */
  quoted(req: R): string;
  /** What changed, when the recorded call is this one in another form: [recorded, attempted]; else null. */
  difference?(rec: Execution, req: R, runPrompt: string): [string, string] | null;
  /**
   * Answered without taking a call key when the recorded call at this key is another one
   * (patched(): a run recorded before the patch takes the old path).
   */
  untaken?(rec: ReplayRecord | undefined, req: R): { value: unknown } | null;
  /** How it ends the run (flow `end`). */
  ends?(req: R): RunEnd;
  /** Before it starts or is picked up (an agent's rules recorded at its first use). */
  prepare?(world: CallWorld, req: R): Promise<void>;
  /** Starts the call in the world, or picks up its record (running, waiting or failed). */
  start?(world: CallWorld, key: string, req: R, rec: Execution | undefined, signal: AbortSignal): Promise<Settled>;
  /** A waiting call: what wakes it, if it came (null: still waiting). */
  poll?(world: CallWorld, exec: Execution, signal: AbortSignal): Promise<Settled | null>;
}

/** What a call's definition reaches of the driver that runs it; every write is fenced by its token. */
export interface CallWorld {
  readonly ctx: StepContext;
  readonly agents: AgentCalls;
  /** The agent's rules, recorded at its first use in the run. */
  firstUse(agent: string): Promise<void>;
  /** Done once, recorded, answered from the log ever after (sh, now, patched). */
  once(
    key: string,
    req: { type: string },
    rec: Execution | undefined,
    how: OnceHow,
    effect: () => Promise<unknown>,
    signal: AbortSignal,
  ): Promise<Settled>;
  /** A person's answer to a waiting call's current ask, if one came. */
  answered(exec: Execution, signal: AbortSignal): Promise<Settled | null>;
  /**
   * Loads a child's workflow file as `shop run` would (check-workflow.ts); throws UsageError.
   * Handed in by the engine: a call imports no VM, since the VM imports every call.
   */
  checkWorkflow(source: string, chunkName: string): void;
}

export interface OnceHow {
  kind: CallKind;
  fingerprint: string;
  /** Shown in `shop log` (a command's text). */
  prompt: string | null;
  /** It may run code that changes a rule file (a command): watched around it. */
  watchFiles?: boolean;
}

/** A definition of any request: what the registry, the VM and the scheduler hold. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each call parses its own request type; the table holds them all
export type AnyCall = CallDefinition<any>;

/** The request a definition parses. */
export type RequestOf<D> = D extends CallDefinition<infer R> ? R : never;

export const clip = (s: string, n = 60) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The recorded identity of a call of `def`. */
export function fingerprintAs<R extends { type: string }>(def: CallDefinition<R>, req: R): string {
  return def.fingerprint ? def.fingerprint(req) : def.describe(req);
}

/**
 * Whether a recorded fingerprint stands for this call. Runs recorded before fingerprints
 * carried a hash compare by what they recorded: kind and agent, message or command.
 */
export function matchesAs<R extends { type: string }>(
  def: CallDefinition<R>,
  recorded: string,
  req: R,
  current = fingerprintAs(def, req),
): boolean {
  // A store keeps a NUL in the call's text as U+FFFD (nul-free.ts): the call as it was recorded.
  if (recorded === current || recorded === nulFreeText(current)) return true;
  if (recorded.includes(' #')) return false;
  return recorded === (def.legacyFingerprint ? def.legacyFingerprint(req) : def.describe(req));
}
