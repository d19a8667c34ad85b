import type { CommandSpec } from '../command-spec.js';
import { acted, bulkFilter, json, wait } from './shared-flags.js';

/** Running and reading runs: init, run, list, status, log, resume, stop, prune. */
export const runCommands = {
  init: {
    usage: 'shop init [--database URL]',
    summary: 'create workflows/, agents/ and .shop/ in this folder',
    group: 'runs',
    maxArgs: 0,
    needsProject: false,
    details: `The store is a SQLite file in .shop/ unless --database names a PostgreSQL database (for workers on
several machines): Shop checks that it connects, creates its tables there, and keeps the URL in
.shop/database.url (readable by you alone). SHOP_DATABASE_URL, when set, takes its place.`,
    options: {
      database: {
        type: 'string',
        value: 'URL',
        description:
          'keep runs in this PostgreSQL database (postgres://USER:PASSWORD@HOST:5432/DATABASE) instead of .shop/shop.db',
      },
    },
  },
  run: {
    usage:
      'shop run <workflow> [prompt… | - | --prompt-file F] [--wait] [--worktree] [--key K] [--priority N] [--detach [--id ID]] [--json]',
    summary: 'start a run of workflows/<workflow>.lua and drive it',
    details: `Prints the run id at once, then drives the run here. When it waits for a person it prints what is
awaited and the exact commands to answer (by the ask's handle), and exits 3 (0 completed, 4 stuck,
1 failed); when it waits only on time (sleep(), sleep_until()) it says until when and exits 7: shop
watch resumes it then. A child run (call_workflow) is driven here too: a child's ask is printed with
its own handle (exit 3), a child waiting on time exits 7. With --wait it prints each ask as it opens and keeps waiting (through sleeps too). A prompt longer than a
command line takes comes from a file (--prompt-file F) or stdin (-: shop run feature - < spec.md),
up to 16 MiB, its trailing line breaks dropped.
With --detach the run is queued for the workers (shop watch, on any machine using this store) and
the command returns at once with its id: they take queued runs highest --priority first, then the
oldest, as they have room, and no more runs of a workflow at once than its config{ concurrency }
(counted per --key: one deploy per environment). The same --id twice gives the same run. A
workflow with config{ concurrency } run without --detach waits here for its turn in the queue
(with its --key and --priority).`,
    group: 'runs',
    maxArgs: Infinity,
    options: {
      ...wait,
      ...acted,
      detach: { type: 'boolean', description: 'queue the run for the workers (shop watch) and return at once' },
      priority: {
        type: 'string',
        value: 'N',
        description: 'a queued run with a higher priority is taken first (a whole number; default 0)',
      },
      key: {
        type: 'string',
        value: 'K',
        description: "runs of one key count apart against the workflow's config{ concurrency } (e.g. prod)",
      },
      id: {
        type: 'string',
        value: 'ID',
        description: 'an idempotency id: a second start with the same id gives the first run, nothing new',
      },
      worktree: {
        type: 'boolean',
        description: 'run in .shop/worktrees/run-<id> on branch shop/run-<id> (a git worktree of this repository)',
      },
      'prompt-file': {
        type: 'string',
        value: 'F',
        description: 'the prompt is the text of file F (- for stdin), up to 16 MiB',
      },
    },
  },
  list: {
    usage: 'shop list [--active] [--status S] [--limit N] [--waiting] [--json]',
    summary: 'list runs, newest first',
    details: `Columns: ID, SPEC, STATUS, AGENT, AWAITING, AGE (since it started), COST, and what it does now, waits
for or ended with. On a terminal the table fits the window (the last column is cut with …); on a pipe
lines are whole.`,
    group: 'runs',
    maxArgs: 0,
    options: {
      active: { type: 'boolean', description: 'only runs not ended (running, interrupted, waiting)' },
      status: {
        type: 'string',
        value: 'S',
        description:
          'only runs in this state: running, interrupted, waiting (on time, an event or a run), waiting_human, completed, stuck, failed',
      },
      limit: {
        type: 'string',
        value: 'N',
        description: 'at most N runs (default 50 on a terminal; all on a pipe or with --json; 0: all)',
      },
      waiting: { type: 'boolean', description: 'every pending ask instead, as shop inbox' },
      ...json('the runs'),
    },
  },
  status: {
    usage: 'shop status <id> [--limit N] [--json | --aah [--call K]]',
    summary: "a run's state, calls, cost and pending asks",
    details: `On a terminal the calls table shows the latest 50 calls and every one still running or waiting, and
says how many earlier ones it left out; on a pipe or with --json it shows every call.`,
    group: 'runs',
    maxArgs: 1,
    options: {
      limit: {
        type: 'string',
        value: 'N',
        description:
          'the latest N calls (and every open one; default 50 on a terminal; all on a pipe or with --json; 0: all)',
      },
      ...json('the run with its calls and pending asks'),
      aah: { type: 'boolean', description: 'print the pending ask as an AAH decision/request artifact' },
      call: { type: 'string', value: 'K', description: 'with --aah: which waiting call, when several wait' },
    },
  },
  log: {
    usage: 'shop log <id> [-f] [--json]',
    summary: "a run's calls and audit trail (who, when, channel), in order",
    details:
      "Times are local, with their offset from UTC. With -f the exit code is the run's: 0 completed, 3 waiting, 4 stuck, 1 failed, 130 interrupted (its driver is gone: -f says so and how to resume instead of waiting).",
    group: 'runs',
    maxArgs: 1,
    options: {
      follow: {
        type: 'boolean',
        short: 'f',
        description: "follow the run and its agents' activity until it ends or waits",
      },
      ...json('the calls and events (with -f: one JSON object per line)'),
    },
  },
  resume: {
    usage:
      'shop resume <id> [--accept-changes [--by NAME]] [--wait] [--json] | shop resume --status S [--workflow W] [--since D] [--dry-run] [--json]',
    summary: 'replay a run from its log and drive it on (after a crash, or to retry a failure)',
    details: `A run keeps the rules it started with (its agents' CLI, model, permissions and gates, its workflow's
config{}); shop status shows them. A run is held when its workflow or an agent definition changed
while one of its own steps ran: resume goes on once the files are back as they were, and otherwise
exits 6 naming them. --accept-changes takes the files as they are now (their rules from now on, a
held run goes on), recorded as the person's decision; it is refused inside an agent step. A run
asleep (sleep()) whose time has not come stays waiting: exit 7, saying until when.
With a filter instead of an id (--status, --workflow, --since, together narrowing), every failed run
and every interrupted one (its driver gone) is queued again for the workers, its log kept: the
worker that takes it replays it and goes on. The others are listed as skipped, with why.`,
    group: 'runs',
    maxArgs: 1,
    options: {
      'accept-changes': {
        type: 'boolean',
        description:
          'take the workflow and agent files as they are now: their rules from now on, and a held run goes on (recorded as yours)',
      },
      by: {
        type: 'string',
        value: 'NAME',
        description: 'with --accept-changes: who accepts (default: SHOP_USER, git user.name, the OS user)',
      },
      ...wait,
      ...acted,
      ...bulkFilter('resumes'),
    },
  },
  priority: {
    usage: 'shop priority <id> <N> [--json]',
    summary: "change a queued run's priority (higher is taken first)",
    details: `Only while the run is queued: once a worker took it, exit 6. The change is in its audit trail.`,
    group: 'runs',
    maxArgs: 2,
    options: { ...acted },
  },
  stop: {
    usage:
      'shop stop <id> --reason R [--by NAME] [--json] | shop stop --workflow W [--status S] [--since D] --reason R [--dry-run] [--json]',
    summary: 'end a run as stuck, stopping its agents',
    details: `Records the stop. The process driving the run (if one is live) stops its agents' process groups
(TERM, then KILL), starts nothing more and ends the run stuck within about a second; this waits for
that. With no live driver, the run is ended here; a queued run is taken off the queue. With a filter
instead of an id (--workflow, --status, --since, together narrowing) every matching run not ended is
stopped, one after another; --reason is then required.`,
    group: 'runs',
    maxArgs: 1,
    options: {
      reason: { type: 'string', value: 'R', description: 'why (recorded; default "stopped by NAME")' },
      by: {
        type: 'string',
        value: 'NAME',
        description: 'who stops it (default: SHOP_USER, git user.name, the OS user)',
      },
      ...acted,
      ...bulkFilter('stops'),
    },
  },
  prune: {
    usage: 'shop prune [--older-than D] [--status S] [--dry-run] [--json]',
    summary: 'delete ended runs with their logs, signal files, worktrees and branches',
    details: `Deletes runs that ended (completed, stuck, failed) — never one still running or waiting, never one a
live process holds: its rows in the store (one transaction per run), .shop/runs/<id>/, its signal
files, its worktree (.shop/worktrees/run-<id>, whatever it holds) and its branch shop/run-<id>.
Prints one line per run and a summary. Run ids are never reused. Exit 0 (also when nothing matched).`,
    group: 'runs',
    maxArgs: 0,
    options: {
      'older-than': {
        type: 'string',
        value: 'D',
        description: 'only runs that ended more than D ago: 30d, 12h, 90m, 45s, 2w (default: every ended run)',
      },
      status: {
        type: 'string',
        value: 'S',
        description:
          'only runs that ended so: completed, stuck or failed (comma-separated for several; default all three)',
      },
      'dry-run': { type: 'boolean', description: 'list what would be deleted, delete nothing' },
      ...json('the runs deleted (or that would be, with --dry-run)'),
    },
  },
} as const satisfies Record<string, CommandSpec>;
