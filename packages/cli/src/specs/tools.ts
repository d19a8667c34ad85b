import type { CommandSpec } from '../command-spec.js';
import { by, json } from './shared-flags.js';

/** Workers and tools: watch, workers, serve, access, event, tui, test, demo, replay. */
export const toolCommands = {
  watch: {
    usage: 'shop watch [<id>…] [--max-parallel N] [--metrics-port N] [--json]',
    summary: 'the worker: keeps runs moving until SIGTERM',
    details: `Takes interrupted runs and drives them on, holds waiting ones (answers given anywhere resume them
here), fires timers, sends notifications. With ids, only those runs, until every one of them has
ended: exit 0 when all completed, else the code of the first that did not (4 stuck, 1 failed); an id
that is no run exits 5. SIGTERM or Ctrl-C: the agents of runs being driven are stopped (the runs stay
resumable), every run is let go, exit 0. Several workers share a project safely — with PostgreSQL, on
several machines: each registers itself (shop workers), takes idle runs with FOR UPDATE SKIP LOCKED
and wakes on LISTEN/NOTIFY, a timer to the next due timer and a sweep every third of a lease.
SHOP_HOSTNAME names the machine in the store. --metrics-port N serves Prometheus' /metrics on
127.0.0.1:N (the store's counts and this process's own) for a scraper on this machine.`,
    group: 'tools',
    maxArgs: Infinity,
    options: {
      'metrics-port': {
        type: 'string',
        value: 'N',
        description: "serve Prometheus' /metrics on 127.0.0.1:N while it watches",
      },
      'max-parallel': {
        type: 'string',
        value: 'N',
        description: 'agents running at once across all runs (extra work waits; default: no limit)',
      },
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
    group: 'tools',
    maxArgs: 0,
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
    group: 'tools',
    maxArgs: 0,
    options: {
      port: {
        type: 'string',
        value: 'N',
        default: '7878',
        description: 'the port to listen on (default 7878; 0 picks a free one)',
      },
      host: {
        type: 'string',
        value: 'H',
        default: '127.0.0.1',
        description: 'the address to listen on (default 127.0.0.1, this machine only)',
      },
      'public-url': {
        type: 'string',
        value: 'URL',
        description: 'the address people open (a tunnel or https proxy), recorded for answer links in notifications',
      },
    },
  },
  access: {
    usage: 'shop access add <name> [--url BASE | --token] [--json] | list [--json] | revoke <name> [--json]',
    summary: 'who may use shop serve: personal login links and API tokens',
    details: `add prints a personal login link for <name> (1–64 letters, digits, spaces, . _ - @), shown only
this once: Shop stores a SHA-256 hash of its token, never the token. The link starts with --url,
else the public URL recorded by shop serve --public-url, else http://127.0.0.1:7878 (shop serve's
default). add --token prints an API token instead, for a script or a CI job: sent as
Authorization: Bearer <token> it reads /api/* and posts /api/answer and /api/events as <name>,
never the pages. A name that already has access exits 6: revoke it first to give a new one.
list shows name, kind (login or token), when added and by whom, last seen (used), revoked — never a token.
revoke makes the link or token stop working and says which it was (exit 5 when no one of that
name has access). Not available inside an agent step (exit 2).`,
    group: 'tools',
    maxArgs: 2,
    extraHint: (extra) => `a name with spaces goes in quotes ("… ${extra}")`,
    options: {
      url: {
        type: 'string',
        value: 'BASE',
        description: "with add: the server's address people open (e.g. https://shop.example.com)",
      },
      token: { type: 'boolean', description: 'with add: an API token for a script or CI job, not a login link' },
      json: {
        type: 'boolean',
        description:
          'with add: {name, login_url} or, with --token, {name, kind, token}; with list: everyone (times ISO 8601); with revoke: {name, kind}',
      },
    },
  },
  event: {
    usage:
      'shop event send <name> [--key K] [--data JSON | --data-file F|-] [--run ID] [--id ID] [--json] | list [--name N] [--run ID] [--limit N] [--json]',
    summary: 'send an event from the outside world (CI finished, a review, a deploy) to waiting runs; list those sent',
    details: `send records an event: <name> and --key K are words of A-Z a-z 0-9 _ . : - (1-200 characters); --data
is one JSON value (--data-file F, or - for stdin), at most 1 MiB. A run's wait_event takes the oldest
event of its name (and key) sent since the run started that it has not taken yet: an event sent
before the wait begins is kept for it, each run takes each event once, and every waiting run may
take the same event. --run ID sends it to that run alone (exit 5 when there is none, 6 when it has
ended). --id ID makes sending idempotent: an id seen before records nothing new, says so and exits 0.
Not available inside an agent step (exit 2). Bad input is one line, exit 2, nothing recorded.
list shows the events sent, newest first (--run: those sent to or taken by that run).`,
    group: 'tools',
    maxArgs: 2,
    options: {
      key: {
        type: 'string',
        value: 'K',
        description: 'with send: narrows which waits take it (wait_event(name, {key = K})), e.g. pr-42',
      },
      data: {
        type: 'string',
        value: 'JSON',
        description: 'with send: the data, one JSON value (e.g. \'{"conclusion":"success"}\')',
      },
      'data-file': {
        type: 'string',
        value: 'F',
        description: 'with send: the data from a file (- for stdin), at most 1 MiB',
      },
      run: {
        type: 'string',
        value: 'ID',
        description: 'send: to this run alone; list: the events sent to or taken by this run',
      },
      id: {
        type: 'string',
        value: 'ID',
        description: 'with send: your idempotency id (a delivery id): the same id twice records one event',
      },
      name: { type: 'string', value: 'N', description: 'with list: only events of this name' },
      limit: {
        type: 'string',
        value: 'N',
        description: 'with list: the newest N (0: all; default 50 on a terminal, else all)',
      },
      json: { type: 'boolean', description: 'send: {event, duplicate}; list: the events (times ISO 8601)' },
    },
  },
  tui: {
    usage: 'shop tui [--by NAME]',
    summary: 'browse runs in a terminal UI (also bare `shop` on a terminal)',
    details: `The inbox, details and logs; continue, approve, reject, stop. When no live process holds a run
answered here, it resumes in the background (shop resume, output in .shop/runs/<id>/tui-resume.log).`,
    group: 'tools',
    maxArgs: 0,
    options: by,
  },
  test: {
    usage: 'shop test <workflow> [--fixture F.json] [--runs N] [--seed S] [--json]',
    summary: "run a workflow on a fixture's simulated agents and people, and check what it expects",
    details: `No LLM, nobody asked. The fixture scripts each agent's reports in order, the people's answers (by
call key, pause message or "*"), sh() output, and what to expect. Prints the path taken and the
outcome. Exit 0 pass, 1 fail (with a diff), 2 bad fixture.`,
    group: 'tools',
    maxArgs: 1,
    needsProject: false,
    options: {
      fixture: {
        type: 'string',
        value: 'F.json',
        description: 'the fixture (default: workflows/<workflow>.test.json)',
      },
      runs: {
        type: 'string',
        value: 'N',
        description: 'N runs on seeds S…S+N-1, and the distribution of their outcomes',
      },
      seed: { type: 'string', value: 'S', description: "the (first) seed (default: the fixture's seed)" },
      ...json('the outcome'),
    },
  },
  demo: {
    usage: 'shop demo',
    summary: 'the feature workflow end to end on simulated agents, in a temp folder (no Claude Code, no cost)',
    details: `Makes a project in a new temp folder and, there, shows each command and what it prints: shop init,
shop test feature (the workflow on its fixture), shop run feature "add a login page" on a stand-in for
Claude Code that ships with Shop (architect, coder and reviewer for two rounds, then the run waits for
a person: exit 3), shop inbox, shop approve of the pause, the deployer, shop status and shop log. It
never calls a real agent and spends nothing. SHOP_* variables of this shell are not passed on (a
SHOP_DATABASE_URL would point the demo at your database) but SHOP_USER (default demo), SHOP_DEBUG and
SHOP_STANDIN_PACE_MS (the stand-in's time between two events, default 250 ms). The
project is left behind for you to try commands in (its path is printed). Exit 0 when every step did
what it should, else 1 naming the step.`,
    group: 'tools',
    maxArgs: 0,
    needsProject: false,
    options: {},
  },
  replay: {
    usage: 'shop replay [<id>… | --all] [--workflow F] [--json]',
    summary: 'check that runs not yet ended still fit their workflow files (nothing is run or written)',
    details: `Each run's log is replayed against its workflow file as it is now (or F), with no agent, command
or write; a change that would break the run on resume is named (call key, what the log recorded, what
the workflow does now). A held run (a rule file changed during one of its steps) is checked too and
said to be held. Exit 0 all compatible and none held, 1 otherwise, 2 when F is the workflow of no run
not yet ended and no ids are given (nothing would be checked).`,
    group: 'tools',
    maxArgs: Infinity,
    options: {
      all: { type: 'boolean', description: 'every run not yet ended, and every held one (the default without ids)' },
      workflow: {
        type: 'string',
        value: 'F',
        description: "check against this file instead of each run's workflow file (with --all: the runs of its name)",
      },
      ...json('the checks'),
    },
  },
} as const satisfies Record<string, CommandSpec>;
