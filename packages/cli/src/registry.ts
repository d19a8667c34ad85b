import { quoted } from '@shop/core/text';
import type { CommandSpec, Group, Parsed } from './command-spec.js';

/**
 * The CLI's command table, data only: each command's help and its flags, declared once (the
 * parser, the help and the handler's typed arguments all come from here). It imports no command:
 * handlers.ts loads each one, and a command imports its argument type from here.
 */

export const GROUPS = {
  runs: 'Runs',
  answer: 'Answering (people in the loop)',
  tools: 'Workers and tools',
  agent: 'Agent side',
} as const satisfies Record<Group, string>;

const json = (what: string) => ({ json: { type: 'boolean', description: `print ${what} as JSON (documented shapes; times ISO 8601)` } }) as const;
const by = { by: { type: 'string', value: 'NAME', description: 'record the answer as from NAME (default: SHOP_USER, git user.name, the OS user)' } } as const;
const call = { call: { type: 'string', value: 'K', description: "which call's ask to answer (4, 4/1/2; 4.2 its second ask): the same as the handle <id>.K" } } as const;
const yes = { yes: { type: 'boolean', short: 'y', description: 'with a bare run id on a terminal: answer its open ask without asking to confirm' } } as const;
const acted = { json: { type: 'boolean', description: 'print one JSON document: the run, the ask answered, its state, the asks open now (progress goes to stderr; the exit code is unchanged)' } } as const;
const wait = { wait: { type: 'boolean', description: 'keep this process alive and resume in place when the answer arrives (instead of exiting 3)' } } as const;

const ANSWERING = `Give the ask's handle as shop inbox and the hints show it (33.4 = run 33, call 4; 33.4.2 = that
call's second ask; 33 --call 4 is the same as 33.4): the answer lands on that ask, or, if it was
answered already, the command exits 6 naming who answered it and what is open now. A bare run id
answers the run's one open ask: on a terminal it shows the question and asks first (--yes skips
that); off a terminal it says which ask it answered.
The answer is recorded (the first one wins; a second exits 6 naming it). When a live process
holds the run — shop watch, shop run --wait, a driver still running other branches — it resumes
the run itself and this command exits 0. Otherwise the run resumes here and the command exits
with its state: 0 completed, 3 waiting for a person again, 7 waiting on time (a sleep), 4 stuck, 1 failed.`;

/** Every command, in one place; handlers.ts loads its module only when it is called, so startup stays fast. */
export const commands = {
  init: {
    usage: 'shop init [--database URL]', summary: 'create workflows/, agents/ and .shop/ in this folder', group: 'runs', maxArgs: 0, needsProject: false,
    details: `The store is a SQLite file in .shop/ unless --database names a PostgreSQL database (for workers on
several machines): Shop checks that it connects, creates its tables there, and keeps the URL in
.shop/database.url (readable by you alone). SHOP_DATABASE_URL, when set, takes its place.`,
    options: {
      database: { type: 'string', value: 'URL', description: 'keep runs in this PostgreSQL database (postgres://USER:PASSWORD@HOST:5432/DATABASE) instead of .shop/shop.db' },
    },
  },
  run: {
    usage: 'shop run <workflow> [prompt… | - | --prompt-file F] [--wait] [--worktree] [--json]',
    summary: 'start a run of workflows/<workflow>.lua and drive it',
    details: `Prints the run id at once, then drives the run here. When it waits for a person it prints what is
awaited and the exact commands to answer (by the ask's handle), and exits 3 (0 completed, 4 stuck,
1 failed); when it waits only on time (sleep(), sleep_until()) it says until when and exits 7: shop
watch resumes it then. A child run (call_workflow) is driven here too: a child's ask is printed with
its own handle (exit 3), a child waiting on time exits 7. With --wait it prints each ask as it opens and keeps waiting (through sleeps too). A prompt longer than a
command line takes comes from a file (--prompt-file F) or stdin (-: shop run feature - < spec.md),
up to 16 MiB, its trailing line breaks dropped.`,
    group: 'runs', maxArgs: Infinity,
    options: {
      ...wait, ...acted,
      worktree: { type: 'boolean', description: 'run in .shop/worktrees/run-<id> on branch shop/run-<id> (a git worktree of this repository)' },
      'prompt-file': { type: 'string', value: 'F', description: 'the prompt is the text of file F (- for stdin), up to 16 MiB' },
    },
  },
  list: {
    usage: 'shop list [--active] [--status S] [--limit N] [--waiting] [--json]',
    summary: 'list runs, newest first',
    details: `Columns: ID, SPEC, STATUS, AGENT, AWAITING, AGE (since it started), COST, and what it does now, waits
for or ended with. On a terminal the table fits the window (the last column is cut with …); on a pipe
lines are whole.`,
    group: 'runs', maxArgs: 0,
    options: {
      active: { type: 'boolean', description: 'only runs not ended (running, interrupted, waiting)' },
      status: { type: 'string', value: 'S', description: 'only runs in this state: running, interrupted, waiting (on time, an event or a run), waiting_human, completed, stuck, failed' },
      limit: { type: 'string', value: 'N', description: 'at most N runs (default 50 on a terminal; all on a pipe or with --json; 0: all)' },
      waiting: { type: 'boolean', description: 'every pending ask instead, as shop inbox' },
      ...json('the runs'),
    },
  },
  status: {
    usage: 'shop status <id> [--limit N] [--json | --aah [--call K]]',
    summary: "a run's state, calls, cost and pending asks",
    details: `On a terminal the calls table shows the latest 50 calls and every one still running or waiting, and
says how many earlier ones it left out; on a pipe or with --json it shows every call.`,
    group: 'runs', maxArgs: 1,
    options: {
      limit: { type: 'string', value: 'N', description: 'the latest N calls (and every open one; default 50 on a terminal; all on a pipe or with --json; 0: all)' },
      ...json('the run with its calls and pending asks'),
      aah: { type: 'boolean', description: 'print the pending ask as an AAH decision/request artifact' },
      call: { type: 'string', value: 'K', description: 'with --aah: which waiting call, when several wait' },
    },
  },
  log: {
    usage: 'shop log <id> [-f] [--json]',
    summary: "a run's calls and audit trail (who, when, channel), in order",
    details: 'Times are local, with their offset from UTC. With -f the exit code is the run\'s: 0 completed, 3 waiting, 4 stuck, 1 failed, 130 interrupted (its driver is gone: -f says so and how to resume instead of waiting).',
    group: 'runs', maxArgs: 1,
    options: {
      follow: { type: 'boolean', short: 'f', description: "follow the run and its agents' activity until it ends or waits" },
      ...json('the calls and events (with -f: one JSON object per line)'),
    },
  },
  resume: {
    usage: 'shop resume <id> [--accept-changes [--by NAME]] [--wait] [--json]', summary: 'replay a run from its log and drive it on (after a crash, or to retry a failure)',
    details: `A run keeps the rules it started with (its agents' CLI, model, permissions and gates, its workflow's
config{}); shop status shows them. A run is held when its workflow or an agent definition changed
while one of its own steps ran: resume goes on once the files are back as they were, and otherwise
exits 6 naming them. --accept-changes takes the files as they are now (their rules from now on, a
held run goes on), recorded as the person's decision; it is refused inside an agent step. A run
asleep (sleep()) whose time has not come stays waiting: exit 7, saying until when.`,
    group: 'runs', maxArgs: 1,
    options: {
      'accept-changes': { type: 'boolean', description: "take the workflow and agent files as they are now: their rules from now on, and a held run goes on (recorded as yours)" },
      by: { type: 'string', value: 'NAME', description: 'with --accept-changes: who accepts (default: SHOP_USER, git user.name, the OS user)' },
      ...wait, ...acted,
    },
  },
  stop: {
    usage: 'shop stop <id> --reason R [--by NAME] [--json]',
    summary: 'end a run as stuck, stopping its agents',
    details: `Records the stop. The process driving the run (if one is live) stops its agents' process groups
(TERM, then KILL), starts nothing more and ends the run stuck within about a second; this waits for
that. With no live driver, the run is ended here.`,
    group: 'runs', maxArgs: 1,
    options: { reason: { type: 'string', value: 'R', description: 'why (recorded; default "stopped by NAME")' }, by: { type: 'string', value: 'NAME', description: 'who stops it (default: SHOP_USER, git user.name, the OS user)' }, ...acted },
  },
  prune: {
    usage: 'shop prune [--older-than D] [--status S] [--dry-run] [--json]',
    summary: 'delete ended runs with their logs, signal files, worktrees and branches',
    details: `Deletes runs that ended (completed, stuck, failed) — never one still running or waiting, never one a
live process holds: its rows in the store (one transaction per run), .shop/runs/<id>/, its signal
files, its worktree (.shop/worktrees/run-<id>, whatever it holds) and its branch shop/run-<id>.
Prints one line per run and a summary. Run ids are never reused. Exit 0 (also when nothing matched).`,
    group: 'runs', maxArgs: 0,
    options: {
      'older-than': { type: 'string', value: 'D', description: 'only runs that ended more than D ago: 30d, 12h, 90m, 45s, 2w (default: every ended run)' },
      status: { type: 'string', value: 'S', description: 'only runs that ended so: completed, stuck or failed (comma-separated for several; default all three)' },
      'dry-run': { type: 'boolean', description: 'list what would be deleted, delete nothing' },
      ...json('the runs deleted (or that would be, with --dry-run)'),
    },
  },
  inbox: {
    usage: 'shop inbox [--json]',
    summary: 'every pending ask across runs: what it awaits, the question, how long, how to answer',
    group: 'answer', maxArgs: 0, options: json('the asks'),
  },
  continue: {
    usage: 'shop continue <id | handle> [--editor] [--claude] [--call K] [--by NAME] [--json]',
    summary: "answer in this terminal: the agent's own Claude session, or a pause's decisions",
    details: `An agent's ask opens its Claude session (claude --resume) in this terminal; it needs one (without,
answer with shop answer <handle> "…"). A pause asks its decisions here; piped input answers them too.
With a bare run id it shows the question of the run's one open ask before anything is answered.
${ANSWERING}`,
    group: 'answer', maxArgs: 1,
    options: {
      editor: { type: 'boolean', description: "first open the run's workspace in $VISUAL or $EDITOR (needs a terminal), then go on when it exits" },
      claude: { type: 'boolean', description: "at a pause: first open a _checkpoint review session in the run's workspace (needs a terminal)" },
      ...call, ...by, ...acted,
    },
  },
  approve: {
    usage: 'shop approve <id | handle> [--message M | --message-file F] [--call K] [--by NAME] [--yes] [--json]',
    summary: 'approve what a run waits on (the verdict matrix decides: close, or back to the agent)',
    details: ANSWERING, group: 'answer', maxArgs: 1,
    extraHint: (extra) => `give your words with --message ${quoted(extra)}`,
    options: { message: { type: 'string', short: 'm', value: 'M', description: "words that go with the approval (to the agent, or the pause's note)" }, 'message-file': { type: 'string', value: 'F', description: 'the words are the text of file F (- for stdin), up to 16 MiB' }, ...call, ...by, ...yes, ...acted },
  },
  reject: {
    usage: 'shop reject <id | handle> [feedback… | --message-file F] [--call K] [--by NAME] [--yes] [--json]',
    summary: 'reject it, with feedback (back to the agent, or close; a pause stops)',
    details: ANSWERING, group: 'answer', maxArgs: Infinity,
    options: { message: { type: 'string', short: 'm', value: 'M', description: 'the feedback, if not given as words' }, 'message-file': { type: 'string', value: 'F', description: 'the words are the text of file F (- for stdin), up to 16 MiB' }, ...call, ...by, ...yes, ...acted },
  },
  answer: {
    usage: 'shop answer <id | handle> <text… | --message-file F> [--call K] [--by NAME] [--yes] [--json]',
    summary: "send your words back to the waiting agent's own session",
    details: ANSWERING, group: 'answer', maxArgs: Infinity, options: { 'message-file': { type: 'string', value: 'F', description: 'the words are the text of file F (- for stdin), up to 16 MiB' }, ...call, ...by, ...yes, ...acted },
  },
  claim: {
    usage: 'shop claim <handle> [--release [--force]] [--by NAME] [--json]',
    summary: "say you are on an ask: its reminders and escalation wait (--release lets go)",
    details: `The claim shows in shop inbox, shop status, the TUI and every --json. It lasts the workflow's
config claim_timeout (default an hour) and is renewed by claiming again; released or aged out, the
ask's reminders and escalation go on. Its timeout (human_timeout) is not put off. Exit 6 when someone
else holds the claim (naming them) or the ask was answered; 5 when the handle names no ask.`,
    group: 'answer', maxArgs: 1,
    options: {
      release: { type: 'boolean', description: 'let go of your claim on the ask' },
      force: { type: 'boolean', description: "with --release: let go of someone else's claim (taking it over)" },
      by: { type: 'string', value: 'NAME', description: 'claim as NAME (default: SHOP_USER, git user.name, the OS user)' },
      ...json('the ask and its claim'),
    },
  },
  signal: {
    usage: 'shop signal <id | handle> --status S | --answers JSON | --answers-file F | --response-file F [--message M] [--call K] [--by NAME] [--yes] [--json]',
    summary: "answer from a script: a status, or a pause's decisions",
    details: ANSWERING, group: 'answer', maxArgs: 1,
    options: {
      status: { type: 'string', value: 'S', description: 'close the call with this status (CONTINUE or STOP at a pause; any UPPER_CASE status for an agent)' },
      answers: { type: 'string', value: 'JSON', description: `a pause's decisions, keyed by decision id: '{"d1": true, "d2": {"value": 3, "comment": "…"}}'` },
      'answers-file': { type: 'string', value: 'F', description: 'the same, read from a file' },
      'response-file': { type: 'string', value: 'F', description: 'an AAH decision/response artifact' },
      message: { type: 'string', short: 'm', value: 'M', description: 'a note recorded with the answer (the summary an agent gets back)' },
      ...call, ...by, ...yes, ...acted,
    },
  },
  watch: {
    usage: 'shop watch [<id>…] [--max-parallel N] [--json]',
    summary: 'the worker: keeps runs moving until SIGTERM',
    details: `Takes interrupted runs and drives them on, holds waiting ones (answers given anywhere resume them
here), fires timers, sends notifications. With ids, only those runs, until every one of them has
ended: exit 0 when all completed, else the code of the first that did not (4 stuck, 1 failed); an id
that is no run exits 5. SIGTERM or Ctrl-C: the agents of runs being driven are stopped (the runs stay
resumable), every run is let go, exit 0. Several workers share a project safely — with PostgreSQL, on
several machines: each registers itself (shop workers), takes idle runs with FOR UPDATE SKIP LOCKED
and wakes on LISTEN/NOTIFY, a timer to the next due timer and a sweep every third of a lease.
SHOP_HOSTNAME names the machine in the store.`,
    group: 'tools', maxArgs: Infinity,
    options: {
      'max-parallel': { type: 'string', value: 'N', description: 'agents running at once across all runs (extra work waits; default: no limit)' },
      json: { type: 'boolean', description: 'one JSON object per line (times ISO 8601)' },
    },
  },
  workers: {
    usage: 'shop workers [--json]',
    summary: 'the shop watch workers on this store, on every machine',
    details: `Lists every shop watch registered on the project's store (with PostgreSQL, on every machine
sharing it): host (SHOP_HOSTNAME, else the machine's name), pid, live or gone, runs it holds, its
agents running (of --max-parallel), since when, its last heartbeat. A worker heartbeats every third
of a lease (SHOP_LEASE_SECONDS); one silent past a lease, or whose process on this machine ended, is
gone and shown holding nothing: live workers take its runs over, its agents ended with it. A worker
that exits removes itself; a gone one is forgotten after a day.`,
    group: 'tools', maxArgs: 0,
    options: { json: { type: 'boolean', description: 'the workers as a JSON array (times ISO 8601)' } },
  },
  serve: {
    usage: 'shop serve [--port N] [--host H] [--public-url URL]',
    summary: 'the web inbox: answer, claim and follow runs from a browser or phone',
    details: `Serves the inbox, runs and run pages (live updates), every answer form, answer links (/a/<token>)
and /api/… (the same JSON as --json) on http://127.0.0.1:7878. People sign in with a personal link:
shop access add <name>. Bound to every interface (--host 0.0.0.0 or ::) it names this machine's own
addresses to open, never 0.0.0.0. --host other than this machine prints a warning: TLS is not built in, put a
tunnel or a reverse proxy with https in front and give its address as --public-url, which is also
recorded so notifications of every process carry answer links. A port in use exits 6. Ctrl-C or
SIGTERM stops it (exit 0); runs answered here go on in the background (shop resume).`,
    group: 'tools', maxArgs: 0,
    options: {
      port: { type: 'string', value: 'N', default: '7878', description: 'the port to listen on (default 7878; 0 picks a free one)' },
      host: { type: 'string', value: 'H', default: '127.0.0.1', description: 'the address to listen on (default 127.0.0.1, this machine only)' },
      'public-url': { type: 'string', value: 'URL', description: 'the address people open (a tunnel or https proxy), recorded for answer links in notifications' },
    },
  },
  access: {
    usage: 'shop access add <name> [--url BASE] [--json] | list [--json] | revoke <name>',
    summary: 'who may sign in to shop serve: personal login links',
    details: `add prints a personal login link for <name> (1–64 letters, digits, spaces, . _ - @), shown only
this once: Shop stores a SHA-256 hash of its token, never the token. The link starts with --url,
else the public URL recorded by shop serve --public-url, else http://127.0.0.1:7878 (shop serve's
default). A name that already has access exits 6: revoke it first to give a new link.
list shows name, when added and by whom, last seen, revoked — never a token.
revoke makes the person's link stop working (exit 5 when no one of that name has access).
Not available inside an agent step (exit 2).`,
    group: 'tools', maxArgs: 2,
    extraHint: (extra) => `a name with spaces goes in quotes ("… ${extra}")`,
    options: {
      url: { type: 'string', value: 'BASE', description: "with add: the server's address people open (e.g. https://shop.example.com)" },
      json: { type: 'boolean', description: 'with add: {name, login_url}; with list: the people (times ISO 8601)' },
    },
  },
  event: {
    usage: 'shop event send <name> [--key K] [--data JSON | --data-file F|-] [--run ID] [--id ID] [--json] | list [--name N] [--run ID] [--limit N] [--json]',
    summary: 'send an event from the outside world (CI finished, a review, a deploy) to waiting runs; list those sent',
    details: `send records an event: <name> and --key K are words of A-Z a-z 0-9 _ . : - (1-200 characters); --data
is one JSON value (--data-file F, or - for stdin), at most 1 MiB. A run's wait_event takes the oldest
event of its name (and key) sent since the run started that it has not taken yet: an event sent
before the wait begins is kept for it, each run takes each event once, and every waiting run may
take the same event. --run ID sends it to that run alone (exit 5 when there is none, 6 when it has
ended). --id ID makes sending idempotent: an id seen before records nothing new, says so and exits 0.
Not available inside an agent step (exit 2). Bad input is one line, exit 2, nothing recorded.
list shows the events sent, newest first (--run: those sent to or taken by that run).`,
    group: 'tools', maxArgs: 2,
    options: {
      key: { type: 'string', value: 'K', description: 'with send: narrows which waits take it (wait_event(name, {key = K})), e.g. pr-42' },
      data: { type: 'string', value: 'JSON', description: 'with send: the data, one JSON value (e.g. \'{"conclusion":"success"}\')' },
      'data-file': { type: 'string', value: 'F', description: 'with send: the data from a file (- for stdin), at most 1 MiB' },
      run: { type: 'string', value: 'ID', description: 'send: to this run alone; list: the events sent to or taken by this run' },
      id: { type: 'string', value: 'ID', description: 'with send: your idempotency id (a delivery id): the same id twice records one event' },
      name: { type: 'string', value: 'N', description: 'with list: only events of this name' },
      limit: { type: 'string', value: 'N', description: 'with list: the newest N (0: all; default 50 on a terminal, else all)' },
      json: { type: 'boolean', description: 'send: {event, duplicate}; list: the events (times ISO 8601)' },
    },
  },
  tui: {
    usage: 'shop tui [--by NAME]',
    summary: 'browse runs in a terminal UI (also bare `shop` on a terminal)',
    details: `The inbox, details and logs; continue, approve, reject, stop. When no live process holds a run
answered here, it resumes in the background (shop resume, output in .shop/runs/<id>/tui-resume.log).`,
    group: 'tools', maxArgs: 0, options: by,
  },
  test: {
    usage: 'shop test <workflow> [--fixture F.json] [--runs N] [--seed S] [--json]',
    summary: "run a workflow on a fixture's simulated agents and people, and check what it expects",
    details: `No LLM, nobody asked. The fixture scripts each agent's reports in order, the people's answers (by
call key, pause message or "*"), sh() output, and what to expect. Prints the path taken and the
outcome. Exit 0 pass, 1 fail (with a diff), 2 bad fixture.`,
    group: 'tools', maxArgs: 1, needsProject: false,
    options: {
      fixture: { type: 'string', value: 'F.json', description: 'the fixture (default: workflows/<workflow>.test.json)' },
      runs: { type: 'string', value: 'N', description: 'N runs on seeds S…S+N-1, and the distribution of their outcomes' },
      seed: { type: 'string', value: 'S', description: "the (first) seed (default: the fixture's seed)" },
      ...json('the outcome'),
    },
  },
  replay: {
    usage: 'shop replay [<id>… | --all] [--workflow F] [--json]',
    summary: 'check that runs not yet ended still fit their workflow files (nothing is run or written)',
    details: `Each run's log is replayed against its workflow file as it is now (or F), with no agent, command
or write; a change that would break the run on resume is named (call key, what the log recorded, what
the workflow does now). A held run (a rule file changed during one of its steps) is checked too and
said to be held. Exit 0 all compatible and none held, 1 otherwise, 2 when F is the workflow of no run
not yet ended and no ids are given (nothing would be checked).`,
    group: 'tools', maxArgs: Infinity,
    options: {
      all: { type: 'boolean', description: 'every run not yet ended, and every held one (the default without ids)' },
      workflow: { type: 'string', value: 'F', description: "check against this file instead of each run's workflow file (with --all: the runs of its name)" },
      ...json('the checks'),
    },
  },
  gate: {
    usage: 'shop gate',
    summary: "decide a tool call an agent is about to make (Claude Code's PreToolUse hook, set by Shop)",
    details: `Shop passes it to the Claude Code sessions it starts (--settings), for agents with gates:. It reads the
tool call on stdin and prints Claude Code's hook decision: defer for a gated call or AskUserQuestion
(the step then waits for a person), the person's decision when the session resumes, nothing otherwise.`,
    group: 'agent', maxArgs: 0, needsProject: false, options: {},
  },
  report: {
    usage: 'shop report <STATUS> [--summary S] [--reason R] [--awaiting KIND] [--field k=v …]',
    summary: "write this step's signal (run by an agent, inside its step)",
    group: 'agent', maxArgs: 1, needsProject: false,
    options: {
      summary: { type: 'string', value: 'S', description: 'what was done (the workflow reads it as .summary)' },
      reason: { type: 'string', value: 'R', description: 'why; for NEEDS_HUMAN, the question for the person' },
      awaiting: { type: 'string', value: 'KIND', description: 'what a NEEDS_HUMAN awaits: input, approval, review, content, escalation, checkpoint, work' },
      field: { type: 'string', multiple: true, value: 'k=v', description: 'any other field for the workflow (repeatable)' },
    },
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof commands;
export type CommandOptions<N extends CommandName> = (typeof commands)[N]['options'];
/** What command N's handler gets: its positionals and its own flags, typed from its declaration above. */
export type CommandArgs<N extends CommandName> = Parsed<CommandOptions<N>>;
