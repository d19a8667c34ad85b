/**
 * @shop/core's public surface: the front ends (CLI, TUI, web) import only from here (and open a
 * store through '@shop/core/store', lazily). Operations and the views they return, errors, the
 * engine's ports for a composition root, and the types those speak. Everything else in core is
 * internal: to give a front end more, export it here on purpose (the linter refuses deep imports).
 */

// access
export { loginUrl } from './access/people.js';
export { personJson } from './access/person-json.js';
export type { AccessAddedJson, AccessRevokedJson, ApiTokenAddedJson } from './access/person-json.js';
export type { AccessKind } from './store/access-store.js';
export { checkPublicUrl } from './access/public-url.js';

// agents
export { cliBin } from './agents/dialects/dialect.js';
export type { CliName } from './agents/dialects/dialect.js';
export { cliDialect } from './agents/dialects/dialect-of.js';
export type { GatePlace } from './agents/gate-paths.js';
export { holdingRule } from './agents/gate-rules.js';
export { describeGates, readGates } from './agents/gate-spec.js';
export type { GateBlock } from './agents/gate-spec.js';
export { hookOutput } from './agents/gates.js';
export type { GateDecision } from './agents/gates.js';

// decisions
export { aahRequest, parseAahResponse, responseRequestId } from './decisions/aah.js';
export { answerCommands, answerSuggestions, suggestionCommand } from './decisions/answer-hint.js';
export { handleOf, parseAskRef, parseCallRef, runIdOf, runIdOfHandle } from './decisions/ask-handle.js';
export { buildAnswer } from './decisions/build-answer.js';
export type { AnswerFields, AnswerInput } from './decisions/build-answer.js';
export { callDecisions, ownDecisions } from './decisions/call-decisions.js';
export { pauseDeadline } from './decisions/decision-spec.js';
export type { Decision, PauseSpec } from './decisions/decision-spec.js';
export { validateAnswers, valueSchema } from './decisions/validate-answers.js';

// errors, types, text, time and run status
export { parseDuration } from './duration.js';
export {
  BudgetSpent,
  ClaimedError,
  ConflictError,
  ExitCode,
  ExpiredError,
  InvalidAnswersError,
  LostOwnershipError,
  NotFoundError,
  RunNotFoundError,
  SessionHeldError,
  ShopError,
  StoreError,
  UsageError,
  issueLine,
} from './errors.js';
export type { SuggestedAction } from './errors.js';
export { fsWhy } from './fs-why.js';
export { shopHostname } from './host-name.js';
export { localTime } from './local-time.js';
export { displayStatus, displayStatuses, driverGoneSince } from './run-status.js';
export type { Liveness } from './run-status.js';
export { bytes, capText, inert, quoted } from './text.js';
export { endedStatuses, hasEnded } from './types.js';
export type {
  Answer,
  AskClaim,
  Execution,
  ExecutionStatus,
  Run,
  RunEvent,
  RunOwner,
  RunStatus,
  Verdict,
} from './types.js';

// engine
export type { AcceptChanges } from './engine/held-run.js';
export { nodePorts } from './engine/node-ports.js';
export { nodeReadPorts } from './engine/node-read-ports.js';
export type { DriveOutcome } from './engine/outcome.js';
export { Ownership, liveOwner } from './engine/ownership.js';
export type { EnginePorts, Notice, Notifier } from './engine/ports.js';
export { holdIsLive } from './engine/session-hold.js';

// traces (OpenTelemetry, only when OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is set: the SDK is loaded only then)
export { openTracing } from './tracing/open-tracing.js';
export type { Tracing } from './tracing/open-tracing.js';

// hooks (POST /hooks/<name>: who signed it, which delivery, does it pass the filter, is it a flood)
export { DELIVERY_HEADERS, EVENT_HEADERS, deliveryId, eventName } from './hooks/delivery.js';
export type { DeliveryIdentity } from './hooks/delivery.js';
export { matchesFilter } from './hooks/filter-match.js';
export type { FilterInput } from './hooks/filter-match.js';
export { parseFilter } from './hooks/filter.js';
export type { FilterCondition, HookFilter } from './hooks/filter.js';
export type { HookHeaders } from './hooks/hook-headers.js';
export { MAX_PAYLOAD_KEY_CHARS, MAX_PAYLOAD_PROMPT_CHARS, parsePayloadPath, valueAt } from './hooks/payload-path.js';
export type { PayloadPath } from './hooks/payload-path.js';
export { ALL_HOOKS_RATE, HOOK_RATE, HookRateLimiter, retryAfterSeconds } from './hooks/rate-limiter.js';
export type { Rate, RateLimiterOptions } from './hooks/rate-limiter.js';
export { SIGNATURE_HEADERS, signBody, verifySignature } from './hooks/signature.js';
export type { SignatureCheck, SignatureFailure, SignatureHeader, SignedDelivery } from './hooks/signature.js';

// lua
export { canonical } from './lua/canonical-hash.js';
export { checkWorkflow } from './lua/check-workflow.js';
export { projectModules } from './lua/module-files.js';

// operations
export { claimVerb, mayAct, runActions, takesVerdict } from './operations/actions.js';
export type { AnswerByHandle, AnswerRequest, AnsweredAsk, PersonChannel, PickedAsk } from './operations/answer-ask.js';
export { callerOf, refuseAgent } from './operations/answer-rules.js';
export type { Caller } from './operations/answer-rules.js';
export { ChangeCursor, RunChangeFeed } from './operations/change-feed.js';
export type { ReplayCheck } from './operations/dry-replay.js';
export type { HookRefusal, HookRequest } from './operations/hook-delivery.js';
export type { AddHookRequest } from './operations/hooks.js';
export type { OpenAsk } from './operations/open-ask.js';
export type { SessionHandOff } from './operations/open-session.js';
export type { PrunedRun } from './operations/prune-runs.js';
export { detailJson } from './operations/queries.js';
export type { RunsQuery } from './operations/queries.js';
export type { ReportTarget } from './operations/record-report.js';
export type { RunView } from './operations/run-view.js';
export { refuseAgentSender } from './operations/send-event.js';
export type { SendEventRequest } from './operations/send-event.js';
export { MAX_EVENT_DATA_BYTES, parseEventData } from './operations/sent-event-rules.js';
export {
  HookAddedJsonSchema,
  HookDeliveredJsonSchema,
  HookJsonSchema,
  InboxRowJsonSchema,
  RunDetailJsonSchema,
} from './operations/shapes.js';
export type {
  AnsweredJson,
  ClaimJson,
  EventJson,
  EventSentJson,
  ExecutionJson,
  HeldJson,
  HookAddedJson,
  HookDeliveredJson,
  HookJson,
  InboxRowJson,
  LogJson,
  PendingJson,
  PruneJson,
  ReplayJson,
  RulesJson,
  RunDetailJson,
  RunJson,
  SentEventJson,
  SessionJson,
  TestJson,
  TestRunsJson,
  WorkersJson,
} from './operations/shapes.js';
export { shopOperations } from './operations/shop-operations.js';
export { readOperations } from './operations/read-operations.js';
export type { ReadOperations, ReadPorts } from './operations/read-operations.js';
export type { RunFilter, RunWithWaiting, ShopOperations } from './operations/shop-operations.js';
export type { QueuedRun, QueueRequest } from './operations/queue-run.js';
export type { BulkOutcome, RunSelection } from './operations/bulk-runs.js';
export type { Trigger } from './types.js';
export type { StopResult } from './operations/stop-run.js';
export { isAtWork, workingCall } from './operations/working-call.js';

// project
export { editorArgv } from './project/editor.js';
export { ensureHome, findProject } from './project/project.js';
export type { Project } from './project/project.js';
export { checkProjectStore } from './project/project-identity.js';
export { responder } from './project/responder.js';
export { shippedFile } from './project/shipped-file.js';
export { resolveWorkflow } from './project/workflows.js';

// rules
export { changedFiles, heldStep } from './rules/hold-lines.js';

// schedules
export { DEFAULT_MAX_DUE, MAX_DUE, ON_TIME_MS, SKIP_COUNT_CAP, dueSlots } from './schedules/due-slots.js';
export type { DueQuery, DueSlots } from './schedules/due-slots.js';
export { MAX_NEXT_SLOTS, nextSlots } from './schedules/next-slots.js';
export { parseSchedule } from './schedules/parse-schedule.js';
export { MAX_CRON_CHARS, MAX_TZ_CHARS } from './schedules/schedule.js';
export type { Schedule, ScheduleSpec } from './schedules/schedule.js';
export {
  CATCH_UPS,
  DEFAULT_CATCH_UP,
  DEFAULT_OVERLAP,
  OVERLAPS,
  parseCatchUp,
  parseOverlap,
} from './schedules/schedule-options.js';
export type { CatchUp, Overlap } from './schedules/schedule-options.js';
export { hostTimeZone, zonedIso } from './schedules/zone.js';
export type { ScheduleJson, ScheduleRequest, SlotJson } from './operations/schedule-ops.js';
export type { ScheduleEvent } from './operations/fire-schedules.js';

// signals
export { AGENT_FILE_CAP, capName, nestingDepth, readCappedFile } from './signals/agent-file.js';
export {
  ANSWER_FIELDS,
  AWAITING_KINDS,
  CHOICES_MAX,
  CHOICE_MAX_CHARS,
  checkSignal,
  writeSignal,
} from './signals/signal.js';
export type { Signal } from './signals/signal.js';

// simulate
export { compareExpect } from './simulate/expect.js';
export { parseFixture } from './simulate/fixture.js';
export type { Fixture } from './simulate/fixture.js';
export { simulate } from './simulate/simulate.js';
export type { Simulation } from './simulate/simulate.js';

// store
export { storeError } from './store/sqlite/sqlite-errors.js';
export type { Store } from './store/store.js';

// waits
export { waitingOnWords } from './waits/waiting-on.js';

// worker
export type { WorkerEvent } from './worker/worker.js';
export { MCP_SERVER_NAME, MCP_TOOLS } from './agents/shop-mcp.js';
