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
  options: Options;
  load: () => Promise<{ default: CommandFn }>;
}

const json = { json: { type: 'boolean' } } as const;
const by = { by: { type: 'string' } } as const;

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
    usage: 'shop list [--active] [--status S] [--json]',
    summary: 'list runs',
    options: { active: { type: 'boolean' }, status: { type: 'string' }, ...json },
    load: () => import('./commands/list.js'),
  },
  status: { usage: 'shop status <id> [--json]', summary: "a run's state, executions, cost and pending ask", options: json, load: () => import('./commands/status.js') },
  log: { usage: 'shop log <id> [--json]', summary: "a run's executions and audit trail, in order", options: json, load: () => import('./commands/log.js') },
  continue: {
    usage: 'shop continue <id> [--call K] [--by NAME]',
    summary: "answer a waiting run: open the agent's Claude session, or decide a pause",
    options: { call: { type: 'string' }, ...by },
    load: () => import('./commands/continue.js'),
  },
  resume: { usage: 'shop resume <id> [--wait]', summary: 'replay a run from its log and drive it on', options: { wait: { type: 'boolean' } }, load: () => import('./commands/resume.js') },
  stop: {
    usage: 'shop stop <id> --reason R [--by NAME]',
    summary: 'end a run as stuck, killing its agent',
    options: { reason: { type: 'string' }, ...by },
    load: () => import('./commands/stop.js'),
  },
  signal: {
    usage: 'shop signal <id> --status CONTINUE|STOP|<STATUS> [--message M] [--call K] [--by NAME]',
    summary: 'answer a waiting call from a script, then resume the run',
    options: { status: { type: 'string' }, message: { type: 'string' }, call: { type: 'string' }, ...by },
    load: () => import('./commands/signal.js'),
  },
  report: {
    usage: 'shop report <STATUS> [--summary S] [--reason R] [--awaiting KIND] [--field k=v …]',
    summary: "(agent side) write this step's signal",
    options: { summary: { type: 'string' }, reason: { type: 'string' }, awaiting: { type: 'string' }, field: { type: 'string', multiple: true } },
    load: () => import('./commands/report.js'),
  },
};
