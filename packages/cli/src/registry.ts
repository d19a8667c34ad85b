import type { ParseArgsConfig } from 'node:util';
import type { Context } from './context.js';

export type Options = NonNullable<ParseArgsConfig['options']>;
export interface Parsed {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
}
export type CommandFn = (args: Parsed, ctx: Context) => Promise<number>;

export interface CommandSpec {
  usage: string;
  summary: string;
  /** More for `shop <cmd> --help`: what happens after, exit codes. */
  details?: string;
  options: Options;
  load: () => Promise<{ default: CommandFn }>;
}

const json = { json: { type: 'boolean' } } as const;

const ANSWERING = `The answer is recorded (the first one wins; a second exits 6 naming it). When a live process
holds the run — shop watch, shop run --wait, a driver still running other branches — it resumes
the run itself and this command exits 0. Otherwise the run resumes here and the command exits
with its state: 0 completed, 3 waiting for a person again, 4 stuck, 1 failed.`;
const by = { by: { type: 'string' } } as const;
const call = { call: { type: 'string' } } as const;

/** Every command, in one place. Each loads its module only when called, so startup stays fast. */
export const commands: Record<string, CommandSpec> = {
  init: { usage: 'shop init', summary: 'create workflows/, agents/ and .shop/ in this folder', options: {}, load: () => import('./commands/init.js') },
  run: {
    usage: 'shop run <workflow> [prompt…] [--wait] [--worktree]',
    summary: 'start a run of workflows/<workflow>.lua',
    options: { wait: { type: 'boolean' }, worktree: { type: 'boolean' } },
    load: () => import('./commands/run.js'),
  },
  list: {
    usage: 'shop list [--active] [--status S] [--waiting] [--json]',
    summary: 'list runs (--waiting: every pending ask, as shop inbox)',
    options: { active: { type: 'boolean' }, status: { type: 'string' }, waiting: { type: 'boolean' }, ...json },
    load: () => import('./commands/list.js'),
  },
  inbox: {
    usage: 'shop inbox [--json]',
    summary: 'every pending ask across runs: awaiting kind, question, how long, how to answer',
    options: json,
    load: () => import('./commands/inbox.js'),
  },
  status: {
    usage: 'shop status <id> [--json | --aah [--call K]]',
    summary: "a run's state, executions, cost and pending asks (--aah: an ask as an AAH decision/request)",
    options: { ...json, aah: { type: 'boolean' }, ...call },
    load: () => import('./commands/status.js'),
  },
  log: {
    usage: 'shop log <id> [-f] [--json]',
    summary: "a run's executions and audit trail, in order (-f: follow it and its agents' activity until it ends or waits)",
    options: { ...json, follow: { type: 'boolean', short: 'f' } },
    load: () => import('./commands/log.js'),
  },
  continue: {
    usage: 'shop continue <id> [--claude] [--call K] [--by NAME]',
    summary: "answer a waiting run: open the agent's Claude session, or decide a pause (--claude: after a review session)",
    options: { claude: { type: 'boolean' }, ...call, ...by },
    details: ANSWERING,
    load: () => import('./commands/continue.js'),
  },
  resume: { usage: 'shop resume <id> [--wait]', summary: 'replay a run from its log and drive it on', options: { wait: { type: 'boolean' } }, load: () => import('./commands/resume.js') },
  stop: {
    usage: 'shop stop <id> --reason R [--by NAME]',
    summary: 'end a run as stuck, killing its agent',
    details: `Records the stop. The process driving the run (if one is live) stops its agents' process groups
(TERM, then KILL), starts nothing more and ends the run stuck within about a second; this waits for
that. With no live driver, the run is ended here.`,
    options: { reason: { type: 'string' }, ...by },
    load: () => import('./commands/stop.js'),
  },
  approve: {
    usage: 'shop approve <id> [--message M] [--call K] [--by NAME]',
    summary: 'approve what a run waits on (the verdict matrix decides: close, or back to the agent)',
    options: { message: { type: 'string' }, ...call, ...by },
    details: ANSWERING,
    load: () => import('./commands/approve.js'),
  },
  reject: {
    usage: 'shop reject <id> [feedback…] [--call K] [--by NAME]',
    summary: 'reject it, with feedback (back to the agent, or close; a pause stops)',
    options: { message: { type: 'string' }, ...call, ...by },
    details: ANSWERING,
    load: () => import('./commands/reject.js'),
  },
  answer: {
    usage: 'shop answer <id> <text…> [--call K] [--by NAME]',
    summary: "send your words back to the waiting agent's own session",
    options: { ...call, ...by },
    details: ANSWERING,
    load: () => import('./commands/answer.js'),
  },
  signal: {
    usage: 'shop signal <id> --status S | --answers JSON | --answers-file F | --response-file F [--message M] [--call K] [--by NAME]',
    summary: 'answer from a script (a status, or a pause\'s decisions), then resume the run',
    options: {
      status: { type: 'string' }, message: { type: 'string' }, answers: { type: 'string' },
      'answers-file': { type: 'string' }, 'response-file': { type: 'string' }, ...call, ...by,
    },
    details: ANSWERING,
    load: () => import('./commands/signal.js'),
  },
  watch: {
    usage: 'shop watch [<id>…] [--max-parallel N] [--json]',
    summary: 'keep runs moving: take interrupted runs, hold waiting ones (answers resume them here), fire timers; SIGTERM lets go',
    details: `With ids, only those runs. --max-parallel N: agents running at once across all runs (extra work
waits). --json: a JSON object per line. SIGTERM or Ctrl-C: the agents of runs being driven are stopped
(the runs stay resumable), every run is let go, exit 0. Several workers share a project safely.`,
    options: { 'max-parallel': { type: 'string' }, ...json },
    load: () => import('./commands/watch.js'),
  },
  tui: {
    usage: 'shop tui [--by NAME]',
    summary: 'browse runs in a terminal UI: the inbox, details and logs; continue, approve, reject, stop (also bare `shop` on a terminal)',
    details: `Answers given here are recorded as from NAME (else SHOP_USER, git user.name, the OS user). When no live
process holds the run, it resumes in the background (shop resume, output in .shop/runs/<id>/tui-resume.log).`,
    options: by,
    load: () => import('./commands/tui.js'),
  },
  test: {
    usage: 'shop test <workflow> [--fixture F.json] [--runs N] [--seed S] [--json]',
    summary: "run a workflow on a fixture's simulated agents and people (no LLM, nobody asked) and check what it expects",
    details: `The fixture (default: workflows/<workflow>.test.json) scripts each agent's reports in order, the
people's answers (by call key, pause message or "*"), sh() output, and what to expect. Prints the path
taken and the outcome. Exit 0 pass, 1 fail (with a diff), 2 bad fixture. --runs N: N runs on seeds
S…S+N-1 (S: --seed, else the fixture's seed) and the distribution of their outcomes.`,
    options: { fixture: { type: 'string' }, runs: { type: 'string' }, seed: { type: 'string' }, ...json },
    load: () => import('./commands/test.js'),
  },
  replay: {
    usage: 'shop replay [<id>… | --all] [--workflow F] [--json]',
    summary: 'check that runs not yet ended still fit their workflow files, before resuming them: nothing is run or written',
    details: `Each run's log is replayed against its workflow file as it is now (or F), with no agent, command
or write; a change that would break the run on resume is named (call key, what the log recorded, what
the workflow does now). --all (the default): every run not yet ended; with --workflow F, those whose
workflow has F's file name. Exit 0 all compatible, 1 some not.`,
    options: { all: { type: 'boolean' }, workflow: { type: 'string' }, ...json },
    load: () => import('./commands/replay.js'),
  },
  report: {
    usage: 'shop report <STATUS> [--summary S] [--reason R] [--awaiting KIND] [--field k=v …]',
    summary: "(agent side) write this step's signal",
    options: { summary: { type: 'string' }, reason: { type: 'string' }, awaiting: { type: 'string' }, field: { type: 'string', multiple: true } },
    load: () => import('./commands/report.js'),
  },
};
