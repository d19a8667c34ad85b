import * as z from 'zod';
import { lazySchema } from '../lazy-schema.js';
import { displayStatuses } from '../run-status.js';

/**
 * The `--json` contract of the read commands, in one place. Commands import only the
 * types (keeping zod out of their start-up); tests parse real output with these schemas.
 */
const iso = lazySchema(() => z.string().nullable());

export const ExecutionJsonSchema = lazySchema(() =>
  z.object({
    key: z.string(),
    /** Order of first appearance. */
    seq: z.number(),
    kind: z.enum([
      'run',
      'pause',
      'sh',
      'now',
      'patch',
      'parallel',
      'sleep',
      'wait_event',
      'event_url',
      'workflow',
      'start_workflow',
      'wait_run',
    ]),
    agent: z.string().nullable(),
    /** waiting: on the world (time, an event, another run); waiting_human: on a person. */
    status: z.enum(['running', 'waiting', 'waiting_human', 'completed', 'failed']),
    /** What replay compares: the call, and a hash of its prompt and options (or spec, or command). */
    fingerprint: z.string(),
    /** The order in which its result was handed to the workflow (replay follows it); null until then. */
    delivered: z.number().nullable(),
    request: z.unknown(),
    /** In shop log --json only: the prompt the agent was given. */
    prompt: z.string().nullable().optional(),
    session_id: z.string().nullable(),
    cwd: z.string().nullable(),
    awaiting: z.string().nullable(),
    waiting_for: z.string().nullable(),
    result: z.unknown(),
    error: z.string().nullable(),
    /** Summed over the call's agent invocations, like its tokens (null: its CLI never said). */
    cost_usd: z.number().nullable(),
    input_tokens: z.number().nullable(),
    output_tokens: z.number().nullable(),
    cache_read_tokens: z.number().nullable(),
    cache_write_tokens: z.number().nullable(),
    num_turns: z.number().nullable(),
    duration_ms: z.number().nullable(),
    attempts: z.number(),
    /** How many times it has waited for a person (answers are per ask). */
    ask: z.number(),
    /** While it works: the agent's latest activity ("Edit src/login.ts"), and since when this attempt runs. */
    activity: z.string().nullable(),
    activity_at: iso,
    attempt_at: iso,
    /**
     * Who holds its agent session now (one process per session): "agent" (a driver's agent
     * step; pid = the agent) or "continue" (a person in shop continue; pid = that process).
     */
    session_hold: z
      .object({
        kind: z.enum(['agent', 'continue']),
        by: z.string(),
        host: z.string(),
        pid: z.number().nullable(),
        since: z.string(),
      })
      .nullable(),
    started_at: iso,
    finished_at: iso,
  }),
);

/** Who claimed an ask ("I'm on it": reminders and escalation wait), since when, and when the claim ages out. */
export const ClaimedByJsonSchema = lazySchema(() =>
  z.object({
    by: z.string(),
    channel: z.string(),
    since: z.string(),
    until: z.string(),
  }),
);

export const PendingJsonSchema = lazySchema(() =>
  z.object({
    key: z.string(),
    kind: z.enum(['run', 'pause']),
    agent: z.string().nullable(),
    awaiting: z.string().nullable(),
    question: z.string().nullable(),
    session_id: z.string().nullable(),
    waiting_since: iso,
    /** Which time this call waits (answers are per ask); the AAH request id names it. */
    ask: z.number(),
    request_id: z.string(),
    /** What the person decides (AAH decision/request decisions). */
    decisions: z.array(z.object({ id: z.string(), type: z.string(), prompt: z.string() }).loose()),
    /** The ask's handle ("33.4", "33.4.2" for the call's second ask): every answering command takes it. */
    handle: z.string(),
    /** Who has claimed it while the claim lasts (an aged-out claim is null). */
    claimed_by: ClaimedByJsonSchema.nullable(),
    /** Exact commands that answer this ask (each names it by handle). */
    answer_with: z.array(z.string()),
    /** The same as data, for a front end to render: verb, handle, label, needs_text, placeholder, decisions, effect. */
    suggestions: z.array(
      z.object({
        verb: z.enum(['continue', 'answer', 'approve', 'reject', 'signal']),
        handle: z.string(),
        label: z.string(),
        needs_text: z.enum(['required', 'optional', 'none']),
        placeholder: z.string().nullable(),
        decisions: z.array(z.string()).nullable(),
        effect: z.string().nullable(),
      }),
    ),
  }),
);

/** One row of `shop inbox --json` / `shop list --waiting --json`: a pending ask and its run. */
/** run_status: the run as list shows it ("interrupted" when its driver is gone, its other calls stalled). */
/** parent: the run whose call_workflow started the asking run (answering it goes on to that run); null for a person's run. */
export const InboxRowJsonSchema = lazySchema(() =>
  PendingJsonSchema.extend({
    run: z.number(),
    spec: z.string(),
    run_status: z.enum(displayStatuses),
    parent: z.number().nullable().default(null),
  }),
);

export const WaitingOnJsonSchema = lazySchema(() =>
  z.object({
    kind: z.enum(['timer', 'event', 'run']),
    key: z.string(),
    /** When it is due (a timer), or its timeout; null: none. */
    until: iso,
    name: z.string().optional(),
    event_key: z.string().nullable().optional(),
    run_id: z.number().optional(),
  }),
);

export const RunJsonSchema = lazySchema(() =>
  z.object({
    id: z.number(),
    spec: z.string(),
    status: z.enum(displayStatuses),
    prompt: z.string(),
    workspace: z.string(),
    branch: z.string().nullable(),
    /** The agent the run is on now: its ask's, else the one at work; null once ended (json-views' currentAgent). */
    agent: z.string().nullable(),
    awaiting: z.string().nullable(),
    /** What it waits on in words: the ask's question, or "timer until 09:00:00 +01:00" for a run waiting on the world. */
    waiting_for: z.string().nullable(),
    /** What a `waiting` run waits on: one entry per waiting call (only the fields that apply to its kind). */
    waiting_on: z.array(WaitingOnJsonSchema).default([]),
    /** A call at work now (list --json): its key, agent, latest activity, since when. */
    activity: z
      .object({ key: z.string(), agent: z.string().nullable(), text: z.string().nullable(), since: z.string() })
      .nullable(),
    /** An interrupted run (status "interrupted"): since when it has had no driver (its last write); null otherwise. */
    driver_gone_since: z.string().nullable(),
    reason: z.string().nullable(),
    result: z.unknown(),
    cost_usd: z.number(),
    /** math.random's seed (replay-stable), and the hash of the workflow file the run started with. */
    seed: z.number(),
    workflow_hash: z.string().nullable(),
    /** The run whose call_workflow/start_workflow started this one; null for a run a person started. */
    parent: z.number().nullable().default(null),
    /** Its place in the queue (shop run --detach): higher priority first; runs of one key count apart against its workflow's concurrency. */
    priority: z.number().default(0),
    key: z.string().nullable().default(null),
    /** Who or what started it (context().trigger without its data); null for a run recorded before schema 14. */
    trigger: z
      .object({
        kind: z.enum(['cli', 'web', 'api', 'schedule', 'webhook', 'parent']),
        name: z.string().nullable(),
        by: z.string().nullable(),
      })
      .nullable()
      .default(null),
    created_at: z.string(),
    updated_at: z.string(),
    ended_at: iso,
  }),
);

/** Where an agent call's Claude session lives: kept in the store (any machine resumes it), or pinned to its host (over the cap). */
export const SessionJsonSchema = lazySchema(() =>
  z.object({
    call: z.string(),
    session_id: z.string(),
    /** The machine it was last kept from. */
    host: z.string(),
    kept: z.enum(['store', 'pinned']),
    /** The transcript's size, and what the store holds of it (gzip; null when pinned). */
    bytes: z.number(),
    stored_bytes: z.number().nullable(),
    saved_at: iso,
  }),
);

/** An agent's rules as a run recorded them: its front matter's keys (null: not set); its instructions stay the file's. */
export const AgentRulesJsonSchema = lazySchema(() =>
  z.object({
    /** Its definition, relative to the project. */
    file: z.string(),
    cli: z.string().nullable(),
    model: z.string().nullable(),
    permission_mode: z.string().nullable(),
    allowed_tools: z.array(z.string()),
    command: z.array(z.string()).nullable(),
    /** As its definition parsed them (null: none). */
    gates: z.unknown(),
  }),
);

/**
 * The rules a run obeys, fixed when it started: every agent's (recorded at its first use when
 * defined later) and its workflow's config{} (null until the file first loaded). What the
 * files say otherwise now is listed in `differs` and not followed: `shop resume <id>
 * --accept-changes` takes the files' rules.
 */
export const RulesJsonSchema = lazySchema(() =>
  z.object({
    agents: z.record(z.string(), AgentRulesJsonSchema),
    /** Its notify targets (notify, notify_on_waiting, escalate_to) as scheme and host only: their secrets are never shown. */
    config: z.record(z.string(), z.unknown()).nullable(),
    /** Each rule file's sha256 as the run last saw it between its steps (the workflow, every agent definition). */
    files: z.record(z.string(), z.string()),
    /** "agents/coder.md: model", "workflows/deploy.lua: config.gates". */
    differs: z.array(z.string()),
  }),
);

/**
 * Why a run is held: rule files that changed while its step `key` ran (or, `interrupted`, since
 * a driver that stopped during it), each with its hash before and after (null: absent).
 */
export const HeldJsonSchema = lazySchema(() =>
  z.object({
    key: z.string(),
    handle: z.string(),
    agent: z.string().nullable(),
    files: z.array(z.object({ path: z.string(), before: z.string().nullable(), after: z.string().nullable() })),
    interrupted: z.boolean(),
    at: z.string(),
  }),
);

export const RunDetailJsonSchema = lazySchema(() =>
  RunJsonSchema.extend({
    /** How many calls the run has made; `executions` holds them all unless --limit cut it to the latest (and the open ones). */
    calls: z.number(),
    executions: z.array(ExecutionJsonSchema),
    /** The oldest pending ask; `asks` holds every one (parallel branches each wait on their own). */
    pending: PendingJsonSchema.nullable(),
    asks: z.array(PendingJsonSchema),
    /** Its agents' sessions, where each lives (shop watch on any machine resumes a kept one). */
    sessions: z.array(SessionJsonSchema).default([]),
    /** The rules it obeys, fixed when it started; null for a run recorded before them that has not been driven since. */
    rules: RulesJsonSchema.nullable().default(null),
    /** Set while it is held: it resumes when the files are back, or with shop resume <id> --accept-changes. */
    held: HeldJsonSchema.nullable().default(null),
    /** The runs its calls started (call_workflow, start_workflow), oldest first: id, workflow, the call's key, status (as stored), why it ended so. */
    children: z
      .array(
        z.object({
          id: z.number(),
          spec: z.string(),
          key: z.string(),
          status: z.string(),
          reason: z.string().nullable(),
        }),
      )
      .default([]),
  }),
);

/** The ask an answering command answered, and what was recorded. */
export const AnsweredJsonSchema = lazySchema(() =>
  z.object({
    handle: z.string(),
    key: z.string(),
    ask: z.number(),
    question: z.string().nullable(),
    verdict: z.string().nullable(),
    status: z.string().nullable(),
    message: z.string().nullable(),
    decisions: z.record(z.string(), z.unknown()).nullable(),
    responder: z.string(),
    channel: z.string(),
  }),
);

/** shop claim --json: the ask, and its claim now (null after --release); `released` is the claim let go, if any. */
export const ClaimJsonSchema = lazySchema(() =>
  z.object({
    handle: z.string(),
    run: z.number(),
    key: z.string(),
    ask: z.number(),
    question: z.string().nullable(),
    claimed_by: ClaimedByJsonSchema.nullable(),
    released: ClaimedByJsonSchema.nullable(),
  }),
);

/** `--json` of the acting commands (run, resume, stop, approve, reject, answer, signal, continue): one document. */
export const ActionJsonSchema = lazySchema(() =>
  z.object({
    command: z.string(),
    run: z.number(),
    /** The ask answered (answering commands), else null. */
    answered: AnsweredJsonSchema.nullable(),
    /** The run's state when the command ended. */
    status: z.enum(displayStatuses),
    reason: z.string().nullable(),
    result: z.unknown(),
    /** The command's exit code (the same as without --json). */
    exit_code: z.number(),
    /** The asks open now, each with its handle and the commands that answer it. */
    asks: z.array(PendingJsonSchema),
  }),
);

export const EventJsonSchema = lazySchema(() =>
  z.object({
    id: z.number(),
    at: z.string(),
    type: z.string(),
    key: z.string().nullable(),
    actor: z.string(),
    channel: z.string(),
    data: z.record(z.string(), z.unknown()).nullable(),
  }),
);

export const LogJsonSchema = lazySchema(() =>
  z.object({
    run: RunJsonSchema,
    executions: z.array(ExecutionJsonSchema),
    events: z.array(EventJsonSchema),
  }),
);

const SimulatedOutcome = {
  status: z.enum(['completed', 'stuck', 'failed', 'waiting_human']),
  result: z.unknown(),
  reason: z.string().nullable(),
};

/** shop test --json: one simulated run, the path it took, and how it met `expect`. */
export const TestJsonSchema = lazySchema(() =>
  z.object({
    workflow: z.string(),
    fixture: z.string(),
    seed: z.number(),
    ...SimulatedOutcome,
    calls: z.array(z.string()),
    path: z.array(z.string()),
    passed: z.boolean(),
    /** One entry per difference from `expect` (a line diff for the result). */
    problems: z.array(z.string()),
  }),
);

/** shop test --runs N --json: the outcomes of N seeds, most frequent first. */
export const TestRunsJsonSchema = lazySchema(() =>
  z.object({
    workflow: z.string(),
    fixture: z.string(),
    runs: z.number(),
    /** First and last seed. */
    seeds: z.tuple([z.number(), z.number()]),
    outcomes: z.array(z.object({ ...SimulatedOutcome, count: z.number(), seeds: z.array(z.number()) })),
    passed: z.number(),
    failed: z.number(),
  }),
);

/** shop replay --json: one entry per run checked. */
export const ReplayJsonSchema = lazySchema(() =>
  z.array(
    z.object({
      run: z.number(),
      spec: z.string(),
      status: z.string(),
      workflow: z.string(),
      compatible: z.boolean(),
      problem: z.string().nullable(),
      /** Where the log and the workflow part ways: the call key, what the log recorded, what the workflow now does ("calls run(…)", "returns before reaching it"). */
      non_determinism: z.object({ key: z.string(), recorded: z.string(), now: z.string() }).nullable(),
      /** Why the run is held (a rule file changed during one of its steps): shop resume refuses it until the file is back or --accept-changes. */
      held: z.string().nullable().default(null),
    }),
  ),
);

/** shop prune --json: one entry per ended run deleted (or that would be, with --dry-run), oldest first. */
export const PruneJsonSchema = lazySchema(() =>
  z.array(
    z.object({
      id: z.number(),
      spec: z.string(),
      status: z.enum(['completed', 'stuck', 'failed']),
      ended_at: z.string(),
      /** deleted; would_delete (--dry-run); skipped: a driver took the run again meanwhile. */
      outcome: z.enum(['deleted', 'would_delete', 'skipped']),
      /** The run's worktree and branch, removed with it. */
      worktree: z.string().nullable(),
      branch: z.string().nullable(),
      /** What could not be removed (a file, a branch); the run's rows are gone all the same. */
      problems: z.array(z.string()),
    }),
  ),
);

/** shop workers --json: every registered worker (shop watch, on any machine), oldest first. */
export const WorkersJsonSchema = lazySchema(() =>
  z.array(
    z.object({
      id: z.string(),
      host: z.string(),
      pid: z.number(),
      /** live: heartbeating (and, on this host, its process alive); gone: silent past a lease, or its process ended without ending its row (kill -9). */
      state: z.enum(['live', 'gone']),
      /**
       * Runs it holds or drives, and its agents running, at its last heartbeat; 0 for a gone worker:
       * it holds nothing (its runs are taken over by live workers, its agents ended with it).
       */
      runs_held: z.number(),
      agents: z.number(),
      max_parallel: z.number().nullable(),
      /** The project identity it serves (its repository's root commit, else an id). */
      project: z.string(),
      since: z.string(),
      last_heartbeat: z.string(),
      /**
       * Runs it leaves to the other workers and why — its checkout lacks their workflow file or
       * workspace — at its last heartbeat (at most 20; none for a gone worker).
       */
      left: z.array(z.object({ run: z.number(), workflow: z.string(), reason: z.string() })),
    }),
  ),
);

/** shop event list --json (newest first), and the event in shop event send --json. */
export const SentEventJsonSchema = lazySchema(() =>
  z.object({
    id: z.number(),
    name: z.string(),
    key: z.string().nullable(),
    /** Any JSON value the sender gave; null when none. */
    data: z.unknown(),
    /** By the store's clock. */
    sent_at: z.string(),
    sent_by: z.string(),
    channel: z.enum(['cli', 'web', 'api', 'url']),
    /** The run it was sent to alone (--run, an event URL); null: every run waiting on its name. */
    run: z.number().nullable(),
    /** The sender's idempotency id (--id), if any. */
    send_id: z.string().nullable(),
  }),
);

/** shop event send --json, POST /api/events: the event, whether its id was seen before (nothing new recorded), the runs it woke. */
export const EventSentJsonSchema = lazySchema(() =>
  z.object({
    event: SentEventJsonSchema,
    duplicate: z.boolean(),
    /** The runs waiting on it when it was recorded (wait_event), woken to take it; [] for a duplicate. */
    woke: z.array(z.number()),
  }),
);

export type SentEventJson = z.infer<typeof SentEventJsonSchema>;
export type EventSentJson = z.infer<typeof EventSentJsonSchema>;
export type WorkersJson = z.infer<typeof WorkersJsonSchema>;
export type ExecutionJson = z.infer<typeof ExecutionJsonSchema>;
export type PruneJson = z.infer<typeof PruneJsonSchema>;
export type TestJson = z.infer<typeof TestJsonSchema>;
export type TestRunsJson = z.infer<typeof TestRunsJsonSchema>;
export type ReplayJson = z.infer<typeof ReplayJsonSchema>;
export type ClaimJson = z.infer<typeof ClaimJsonSchema>;
export type ClaimedByJson = z.infer<typeof ClaimedByJsonSchema>;
export type PendingJson = z.infer<typeof PendingJsonSchema>;
export type InboxRowJson = z.infer<typeof InboxRowJsonSchema>;
export type RunJson = z.infer<typeof RunJsonSchema>;
export type EventJson = z.infer<typeof EventJsonSchema>;
export type AnsweredJson = z.infer<typeof AnsweredJsonSchema>;
export type ActionJson = z.infer<typeof ActionJsonSchema>;
export type RunDetailJson = z.infer<typeof RunDetailJsonSchema>;
export type SessionJson = z.infer<typeof SessionJsonSchema>;
export type RulesJson = z.infer<typeof RulesJsonSchema>;
export type HeldJson = z.infer<typeof HeldJsonSchema>;
export type LogJson = z.infer<typeof LogJsonSchema>;

/** shop hook list --json (and add's `hook`): a hook as people see it, never its secret. */
export const HookJsonSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    /** Starts a queued run of it, or… */
    workflow: z.string().nullable(),
    /** …sends this event to waiting runs. */
    event: z.string().nullable(),
    key_from: z.string().nullable(),
    prompt_from: z.string().nullable(),
    filter: z.string().nullable(),
    github: z.boolean(),
    /** Where its secret is: kept in the store (made by add, shown once), or this variable of shop serve's environment. */
    secret: z.enum(['kept', 'env']),
    secret_env: z.string().nullable(),
    /** <public url>/hooks/<name>; null until shop serve --public-url records an address. */
    url: z.string().nullable(),
    created_at: z.string(),
    created_by: z.string(),
  }),
);

/** shop hook add --json: the hook, and the secret Shop made (null with --secret-env), shown only this once. */
export const HookAddedJsonSchema = lazySchema(() => z.object({ hook: HookJsonSchema, secret: z.string().nullable() }));

/** POST /hooks/<name>: what a delivery did; a duplicate says what its first did and records nothing new. */
export const HookDeliveredJsonSchema = lazySchema(() =>
  z.object({
    hook: z.string(),
    delivery: z.string(),
    duplicate: z.boolean(),
    outcome: z.enum(['run', 'event', 'filtered']),
    /** The queued run (its first delivery's, for a duplicate). */
    run: z.number().nullable(),
    /** The event sent (null for a duplicate). */
    event: z.number().nullable(),
    /** Runs waiting on the event, woken to take it. */
    woke: z.array(z.number()),
  }),
);

export type HookJson = z.infer<typeof HookJsonSchema>;
export type HookAddedJson = z.infer<typeof HookAddedJsonSchema>;
export type HookDeliveredJson = z.infer<typeof HookDeliveredJsonSchema>;
