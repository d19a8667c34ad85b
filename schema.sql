-- Shop's SQLite store schema at SCHEMA_VERSION (packages/core/src/store/schema-version.ts).
-- Applied by packages/core/src/store/sqlite/migrate.ts to a new store; an older one is migrated
-- there step by step first. PRAGMA user_version holds the version. PostgreSQL's schema is
-- packages/core/src/store/pg/schema.ts, with the same tables, columns and index names
-- (packages/core/src/store/pg/schema-parity.test.ts compares them).
-- Times are milliseconds since the epoch. JSON columns hold JSON text.
-- A step writes few pages: executions and events are clustered by run (WITHOUT ROWID, in the
-- order they are appended), and the counters a step needs live on the run's row, which every
-- step updates anyway. The small tables keyed by something other than an integer are WITHOUT
-- ROWID too: one b-tree each, not a table and its key's index (and one page less while empty).

CREATE TABLE IF NOT EXISTS runs (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  spec            TEXT    NOT NULL,             -- workflow name (file stem)
  workflow_path   TEXT    NOT NULL,
  workflow_hash   TEXT,                         -- hash of the workflow file the run started with
  prompt          TEXT    NOT NULL,
  status          TEXT    NOT NULL CHECK (status IN ('queued','running','waiting','waiting_human','completed','stuck','failed')),
  workspace       TEXT    NOT NULL,             -- where agents run (project root or worktree)
  branch          TEXT,                         -- worktree branch, if any
  reason          TEXT,                         -- why it is stuck / failed
  result          TEXT,                         -- JSON: workflow's return value
  seed            INTEGER NOT NULL,             -- math.random seed (replay-stable)
  owner_token     TEXT,                         -- the driver that owns the run (fencing token)
  owner_host      TEXT,
  owner_pid       INTEGER,
  owner_pid_start TEXT,                         -- the owner process's start time (pid reuse guard)
  lease_until     INTEGER,                      -- owner's lease; past it the run is "interrupted"
  stop_reason     TEXT,                         -- shop stop: recorded here, carried out by the owner
  stop_by         TEXT,
  stop_at         INTEGER,
  calls           INTEGER NOT NULL DEFAULT 0,   -- executions so far: the next one's seq is calls + 1
  delivered       INTEGER NOT NULL DEFAULT 0,   -- results handed to Lua so far (the delivery order)
  events          INTEGER NOT NULL DEFAULT 0,   -- the run's last event id
  rules           TEXT,                         -- JSON: the rules fixed when it started (agents, config{}, file hashes)
  held            TEXT,                         -- JSON: the rule files that changed during one of its steps (resume refused)
  parent_id       INTEGER REFERENCES runs(id),  -- the run whose call_workflow/start_workflow started it (a child run)
  parent_key      TEXT,                         -- that call's key in the parent
  -- Schema 14 (the queue; its indexes are made in sqlite/migrate.ts, after older stores get the columns):
  priority        INTEGER NOT NULL DEFAULT 0,   -- a queued run: higher first, then older
  queue_key       TEXT,                         -- --key: config{ concurrency } counts runs of one key apart
  concurrency     INTEGER,                      -- its workflow's config{ concurrency } when it was queued
  trigger_json    TEXT,                         -- JSON: who or what started it (context().trigger)
  start_id        TEXT,                         -- the starter's idempotency id: the same id twice is one run
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  ended_at        INTEGER
);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status);
-- What changed since a reader last looked (the TUI, shop log -f): every change touches updated_at.
CREATE INDEX IF NOT EXISTS runs_updated ON runs(updated_at);
-- The few held runs (shop replay checks them), found without reading the others.
CREATE INDEX IF NOT EXISTS runs_held ON runs(id) WHERE held IS NOT NULL;
-- Exactly one child per parent call, ever: a replayed or taken-over parent finds it by its key.
CREATE UNIQUE INDEX IF NOT EXISTS runs_parent ON runs(parent_id, parent_key) WHERE parent_id IS NOT NULL;

-- One row per host call of a run, named by the call path ("1", "2", "4/2/1"), stored in call order.
CREATE TABLE IF NOT EXISTS executions (
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  call_key      TEXT    NOT NULL,
  seq           INTEGER NOT NULL,             -- order of first appearance (runs.calls at its start)
  kind          TEXT    NOT NULL,             -- run | pause | sh | now | patch | parallel | sleep | workflow | start_workflow | wait_run
  agent         TEXT,
  fingerprint   TEXT    NOT NULL,             -- what replay compares
  status        TEXT    NOT NULL CHECK (status IN ('running','waiting','waiting_human','completed','failed')),
  delivered     INTEGER,                      -- order in which its result was handed to Lua
  session_id    TEXT,
  cwd           TEXT,                         -- directory the agent session lives in
  prompt        TEXT,
  request       TEXT,                         -- JSON: the call's arguments
  result        TEXT,                         -- JSON: what the call returned to Lua
  signal_path   TEXT,
  waiting_for   TEXT,                         -- the question while waiting_human
  awaiting      TEXT,                         -- awaiting kind of a NEEDS_HUMAN
  error         TEXT,
  cost_usd      REAL,                         -- summed over the call's agent invocations
  input_tokens  INTEGER,                      -- tokens the CLI reported, summed the same way (NULL: never reported)
  output_tokens INTEGER,
  cache_read_tokens  INTEGER,
  cache_write_tokens INTEGER,
  num_turns     INTEGER,
  duration_ms   INTEGER,
  pid           INTEGER,                      -- agent process (group leader) while running
  pid_start     TEXT,                         -- its start time (pid reuse guard)
  attempt_at    INTEGER,                      -- when the current attempt started (elapsed time)
  activity      TEXT,                         -- the agent's latest activity ("Edit src/login.ts")
  activity_at   INTEGER,
  attempts      INTEGER NOT NULL DEFAULT 1,
  ask           INTEGER NOT NULL DEFAULT 0,   -- how many times it has waited for a person
  spawned       INTEGER NOT NULL DEFAULT 0,   -- agent processes started on its session (0: never started, start it fresh)
  -- Who holds the call's agent session: one process per session, ever. 'agent' (a driver's
  -- agent step or feedback resume: token = the driver's owner token, pid = the agent) or
  -- 'continue' (a person's shop continue: its own token, pid = the shop continue process).
  hold_kind     TEXT CHECK (hold_kind IN ('agent','continue')),
  hold_token    TEXT,
  hold_by       TEXT,                         -- who: the person, or the agent's name
  hold_host     TEXT,
  hold_pid      INTEGER,
  hold_pid_start TEXT,                        -- the holder's start time (pid reuse guard)
  hold_since    INTEGER,
  claim_timeout INTEGER,                      -- seconds a claim on its ask lasts (config claim_timeout; null: an hour)
  ask_decisions TEXT,                         -- JSON: the decisions its current ask asks for, when not the implied one (an agent's AskUserQuestion)
  wait_kind     TEXT,                         -- while status = 'waiting': timer | event | run
  wait_until    INTEGER,                      -- while status = 'waiting': when it is due (the store's clock), if it has a due time
  wait_run      INTEGER,                      -- while waiting on a run (call_workflow, wait_run): that run's id
  started_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  finished_at   INTEGER,
  PRIMARY KEY (run_id, seq),
  UNIQUE (run_id, call_key)
) WITHOUT ROWID;
-- Open calls (inbox, list), without scanning every finished one.
CREATE INDEX IF NOT EXISTS executions_open ON executions(status, run_id) WHERE status IN ('running','waiting','waiting_human');
-- Calls waiting on a run (call_workflow, wait_run): a worker's pass finds those whose run ended without reading the sleepers.
CREATE INDEX IF NOT EXISTS executions_wait_run ON executions(wait_run) WHERE wait_run IS NOT NULL AND status = 'waiting';

-- Human answers: one per ask (a call may wait several times), immutable; the primary key
-- makes the first one win. The feedback travels in the same row as the verdict.
CREATE TABLE IF NOT EXISTS answers (
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  call_key      TEXT    NOT NULL,
  ask           INTEGER NOT NULL,
  verdict       TEXT,                         -- approved | rejected | answer (shop approve/reject/answer)
  status        TEXT,                         -- an explicit status (shop signal --status)
  message       TEXT,                         -- feedback, answer text or note
  decisions     TEXT,                         -- JSON: validated answers of a structured pause
  responder     TEXT    NOT NULL,
  channel       TEXT    NOT NULL,
  answered_at   INTEGER NOT NULL,
  PRIMARY KEY (run_id, call_key, ask)
);

-- Durable timers of asks (human_timeout, a pause's deadline, reminders, escalation): rows
-- with a due time, so they fire after restarts. A timer is void once its ask is answered.
CREATE TABLE IF NOT EXISTS timers (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  call_key      TEXT    NOT NULL,
  ask           INTEGER NOT NULL,
  kind          TEXT    NOT NULL,             -- timeout | remind | escalate | wake (a call waiting on the world is due)
  due_at        INTEGER NOT NULL,
  fired_at      INTEGER,
  data          TEXT                          -- JSON: on_timeout, who is told, how often
);
CREATE INDEX IF NOT EXISTS timers_due ON timers(due_at) WHERE fired_at IS NULL;

-- Append-only audit trail; ids count up within a run (runs.events).
CREATE TABLE IF NOT EXISTS events (
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  id            INTEGER NOT NULL,
  call_key      TEXT,
  type          TEXT    NOT NULL,
  actor         TEXT    NOT NULL,
  channel       TEXT    NOT NULL,
  data          TEXT,
  at            INTEGER NOT NULL,
  PRIMARY KEY (run_id, id)
) WITHOUT ROWID;

CREATE TRIGGER IF NOT EXISTS events_append_only_update BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_append_only_delete BEFORE DELETE ON events
BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS answers_immutable BEFORE UPDATE ON answers
BEGIN SELECT RAISE(ABORT, 'answers are immutable'); END;

-- Schema 7: reach. Settings shared by every process on the store: the public address of
-- `shop serve` (answer links in notifications) and the key answer links are signed with.
CREATE TABLE IF NOT EXISTS settings (
  name          TEXT    PRIMARY KEY,
  value         TEXT    NOT NULL,
  updated_at    INTEGER NOT NULL
) WITHOUT ROWID;

-- People with access to `shop serve` (shop access add): their login token, hashed.
CREATE TABLE IF NOT EXISTS people (
  name          TEXT    PRIMARY KEY,
  token_hash    TEXT    NOT NULL UNIQUE,
  created_at    INTEGER NOT NULL,
  created_by    TEXT    NOT NULL,
  revoked_at    INTEGER,
  last_seen_at  INTEGER,
  -- Schema 13: 'login' a person's login link (the web's pages), 'token' an API token (a script's
  -- Authorization: Bearer on /api/*). One namespace: "answered by <name>" names one holder.
  kind          TEXT    NOT NULL DEFAULT 'login' CHECK (kind IN ('login','token'))
) WITHOUT ROWID;

-- Schema 11: web sessions of `shop serve` ended before they expire (logout). A session is a
-- signed cookie naming its id; one whose id is here is refused. A row goes a day after the
-- session would have expired anyway (expires_at, from the session itself).
CREATE TABLE IF NOT EXISTS ended_sessions (
  id            TEXT    PRIMARY KEY,
  ended_at      INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS ended_sessions_expiry ON ended_sessions(expires_at);

-- "I'm on it": who claimed an open ask (shop claim, the TUI, the web). One claim per ask;
-- a claim puts off reminders and escalation until released or aged out. It ages out at
-- expires_at (claimed_at + the ask's claim_timeout): readers judge a claim by it alone.
CREATE TABLE IF NOT EXISTS claims (
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  call_key      TEXT    NOT NULL,
  ask           INTEGER NOT NULL,
  by            TEXT    NOT NULL,
  channel       TEXT    NOT NULL,
  claimed_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  PRIMARY KEY (run_id, call_key, ask)
) WITHOUT ROWID;

-- Schema 8: the worker registry. Every `shop watch` (on any machine) registers itself, heartbeats
-- while it lives and removes its row on exit; `shop workers` lists them. A row whose heartbeat
-- stopped is a worker gone without ending (killed, its machine down).
CREATE TABLE IF NOT EXISTS workers (
  id            TEXT    PRIMARY KEY,          -- the worker's own random id
  host          TEXT    NOT NULL,             -- SHOP_HOSTNAME, else the machine's name
  pid           INTEGER NOT NULL,
  pid_start     TEXT,                         -- its start time (pid reuse guard)
  project       TEXT    NOT NULL,             -- the project identity it serves
  max_parallel  INTEGER,                      -- its --max-parallel (null: no limit)
  runs_held     INTEGER NOT NULL DEFAULT 0,   -- runs it holds or drives, at its last heartbeat
  agents        INTEGER NOT NULL DEFAULT 0,   -- agent processes it ran, at its last heartbeat
  started_at    INTEGER NOT NULL,
  heartbeat_at  INTEGER NOT NULL,
  -- Schema 15 (made in sqlite/migrate.ts for older stores):
  left_runs     TEXT                          -- JSON: runs it leaves to others, and why (its checkout lacks them)
) WITHOUT ROWID;

-- Schema 9: sessions across machines. An agent call's Claude Code transcript, kept after each
-- step (gzip) so another machine can resume the session; gz NULL: it was over the cap and
-- lives only on `host` (the run's agent steps are pinned there).
CREATE TABLE IF NOT EXISTS sessions (
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  session_id    TEXT    NOT NULL,
  call_key      TEXT    NOT NULL,
  host          TEXT    NOT NULL,
  bytes         INTEGER NOT NULL,             -- the transcript's size
  sha256        TEXT    NOT NULL,
  gz            BLOB,
  saved_at      INTEGER NOT NULL,
  PRIMARY KEY (run_id, session_id)
);

-- What an agent reported with `shop report` for its call's attempt (signal_path is that
-- attempt's secret), so a report never depends on a disk the reader shares.
CREATE TABLE IF NOT EXISTS reports (
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  call_key      TEXT    NOT NULL,
  signal_path   TEXT    NOT NULL,
  body          TEXT    NOT NULL,             -- the signal, JSON
  reported_at   INTEGER NOT NULL,
  PRIMARY KEY (run_id, call_key)
);

-- Schema 12: events from the outside world (shop event send, POST /api/events, event URLs),
-- apart from the runs' audit trail (events). A sent event waits here for the runs that take it:
-- each run takes each event at most once (event_takes' unique pair), several runs may take the
-- same one (broadcast), and one sent to a run (run_id) is for that run alone.
CREATE TABLE IF NOT EXISTS sent_events (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  name          TEXT    NOT NULL,
  event_key     TEXT,                         -- narrows who takes it (wait_event's key), e.g. pr-42
  data          TEXT,                         -- JSON
  sent_at       INTEGER NOT NULL,             -- the store's clock
  sent_by       TEXT    NOT NULL,
  channel       TEXT    NOT NULL CHECK (channel IN ('cli','web','api','url')),
  run_id        INTEGER REFERENCES runs(id),  -- sent to this run alone (--run, an event URL)
  send_id       TEXT    UNIQUE                -- the sender's idempotency id (--id): the same id twice records one event
);
CREATE INDEX IF NOT EXISTS sent_events_name ON sent_events(name, id);
CREATE INDEX IF NOT EXISTS sent_events_run ON sent_events(run_id) WHERE run_id IS NOT NULL;

-- Which event a run's wait took, under its call key: replay returns the same one.
CREATE TABLE IF NOT EXISTS event_takes (
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  call_key      TEXT    NOT NULL,
  event_id      INTEGER NOT NULL REFERENCES sent_events(id) ON DELETE CASCADE,
  taken_at      INTEGER NOT NULL,
  PRIMARY KEY (run_id, call_key),
  UNIQUE (run_id, event_id)
) WITHOUT ROWID;

-- Schema 14: schedules (shop schedule add). Each due slot is fired exactly once across every
-- worker: the slot row's primary key is the schedule and the slot's instant.
CREATE TABLE IF NOT EXISTS schedules (
  name          TEXT    PRIMARY KEY,
  workflow      TEXT    NOT NULL,
  cron          TEXT    NOT NULL,
  tz            TEXT    NOT NULL,
  prompt        TEXT    NOT NULL DEFAULT '',
  queue_key     TEXT,
  priority      INTEGER NOT NULL DEFAULT 0,
  overlap       TEXT    NOT NULL CHECK (overlap IN ('skip','queue','allow')),
  catch_up      TEXT    NOT NULL CHECK (catch_up IN ('none','latest','all')),
  paused_at     INTEGER,
  created_at    INTEGER NOT NULL,
  created_by    TEXT    NOT NULL,
  last_slot     INTEGER                       -- the latest slot decided (fired or skipped), the store's clock
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS schedule_slots (
  schedule      TEXT    NOT NULL REFERENCES schedules(name) ON DELETE CASCADE,
  slot_at       INTEGER NOT NULL,
  outcome       TEXT    NOT NULL CHECK (outcome IN ('fired','skipped_overlap','skipped_missed')),
  run_id        INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  decided_at    INTEGER NOT NULL,
  decided_by    TEXT    NOT NULL,             -- the worker (or shop schedule run) that decided it
  PRIMARY KEY (schedule, slot_at)
) WITHOUT ROWID;

-- Schema 14: webhooks (shop hook add; POST /hooks/<name> on shop serve).
CREATE TABLE IF NOT EXISTS hooks (
  name          TEXT    PRIMARY KEY,
  workflow      TEXT,                         -- starts a queued run of it, or
  event_name    TEXT,                         -- sends this event to waiting runs
  key_from      TEXT,                         -- a payload path: the run's queue key / the event's key
  prompt_from   TEXT,                         -- a payload path: the run's prompt
  filter        TEXT,                         -- the delivery must match it (hooks/filter.ts)
  github        INTEGER NOT NULL DEFAULT 0,   -- GitHub's headers (X-Hub-Signature-256, X-GitHub-Delivery)
  secret_env    TEXT,                         -- the secret is read from this variable of shop serve's environment, or
  secret        TEXT,                         -- kept here (made by shop hook add, shown once)
  created_at    INTEGER NOT NULL,
  created_by    TEXT    NOT NULL,
  CHECK ((workflow IS NULL) <> (event_name IS NULL))
) WITHOUT ROWID;
-- A delivery id seen before is a redelivery: answered 200 "duplicate", nothing new recorded.
CREATE TABLE IF NOT EXISTS hook_deliveries (
  hook          TEXT    NOT NULL REFERENCES hooks(name) ON DELETE CASCADE,
  delivery      TEXT    NOT NULL,
  received_at   INTEGER NOT NULL,
  outcome       TEXT    NOT NULL,             -- 'run', 'event', 'filtered'
  run_id        INTEGER REFERENCES runs(id) ON DELETE SET NULL,
  PRIMARY KEY (hook, delivery)
) WITHOUT ROWID;
