import type { CommandSpec } from '../command-spec.js';

const USAGE =
  'shop schedule add <name> <workflow> --cron "EXPR" [--tz ZONE] [--prompt P] [--key K] [--priority N] [--overlap skip|queue|allow] [--catch-up none|latest|all] [--json] | list [--json] | slots <name> [--limit N] [--json] | pause|resume|remove|run <name>';

/** Runs that start themselves: schedules. */
export const scheduleCommands = {
  schedule: {
    usage: USAGE,
    summary: 'runs that start on a cron schedule, fired by the shop watch workers',
    details: `add records a schedule: at each time its cron expression matches (5 fields, or 6 with seconds
first; @daily …) on the clock of --tz (an IANA zone; default this machine's), a shop watch worker
queues a run of <workflow> with --prompt, --key and --priority (trigger schedule: context().trigger
= {kind = "schedule", name, by, data = {slot}}). Each slot fires once across all workers and
machines. Across DST a time the clock jumps over fires once at the jump, a repeated one once.
--catch-up after downtime: latest (default) one run for the missed slots, none, or all of them
(at most 100). --overlap while this schedule's previous run is not ended: skip (default) records the
slot skipped, queue queues it to start when no run of its workflow (and key) is driven, allow queues
it beside (the workflow's concurrency alone bounds it). <name> is 1-64 of a-z 0-9 - _. Bad input is
one line, exit 2, nothing recorded (a name taken too); an unknown workflow exits 5.
list shows each schedule, its next 3 fire times on its zone's clock, paused, its last slot and
what came of it. slots shows a schedule's decided slots, newest first: fired (with the run) or
skipped (skipped_missed, skipped_overlap). pause stops it firing; resume starts it again from now
(the slots passed while paused are not caught up). remove deletes it and its slots (its runs stay).
run queues one run of it now (no slot). An unknown name exits 5.`,
    group: 'runs',
    maxArgs: 3,
    options: {
      cron: { type: 'string', value: 'EXPR', description: 'with add: when, e.g. "0 9 * * 1-5" (09:00 on weekdays)' },
      tz: {
        type: 'string',
        value: 'ZONE',
        description: "with add: the zone the cron is read in (default this machine's)",
      },
      prompt: { type: 'string', value: 'P', description: "with add: each run's prompt" },
      key: {
        type: 'string',
        value: 'K',
        description: "with add: each run's queue key (config{ concurrency } per key)",
      },
      priority: { type: 'string', value: 'N', description: "with add: each run's priority (higher first; default 0)" },
      overlap: {
        type: 'string',
        value: 'skip|queue|allow',
        description: 'with add: a slot while the previous run is not ended (default skip)',
      },
      'catch-up': {
        type: 'string',
        value: 'none|latest|all',
        description: 'with add: the slots missed while no worker ran (default latest)',
      },
      limit: { type: 'string', value: 'N', description: 'with slots: the newest N (default 100, at most 1000)' },
      json: {
        type: 'boolean',
        description: 'add, pause, resume: the schedule; list: every schedule; slots: the slots; run: {run, status}',
      },
    },
  },
} as const satisfies Record<string, CommandSpec>;
